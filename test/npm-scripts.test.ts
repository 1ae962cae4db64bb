/**
 * Every npm script of the root package.json is exercised somewhere (test/support/npm-scripts.ts
 * says where), and described (package.json's "scripts-info"). Reads files only: it is in the quick
 * project; test/npm-scripts-run.test.ts runs the scripts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import vitestConfig, { QUICK_TEST_FILES } from '../vitest.config.js';
import { NPM_SCRIPT_COVERAGE, scriptEntry } from './support/npm-scripts.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; 'scripts-info'?: Record<string, string> };
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('npm scripts', () => {
  it('each one says how it is exercised, and each entry names a script', () => {
    const unexercised = Object.keys(pkg.scripts).filter((name) => !(name in NPM_SCRIPT_COVERAGE));
    expect(unexercised, 'scripts exercised nowhere: add each to test/support/npm-scripts.ts (a quick run, the test that runs it, or a stated exception)').toEqual([]);
    expect(Object.keys(NPM_SCRIPT_COVERAGE).filter((name) => !(name in pkg.scripts)), 'entries in test/support/npm-scripts.ts for scripts that are gone').toEqual([]);
  });

  it('each one is described in package.json\'s "scripts-info", and the files a description names exist', () => {
    const info = pkg['scripts-info'] ?? {};
    expect(Object.keys(info).sort()).toEqual(Object.keys(pkg.scripts).sort());
    for (const [name, text] of Object.entries(info)) {
      for (const path of text.match(/[\w.-]+(?:\/[\w.-]+)+\.(?:md|ts|c|wasm|yml)\b/g) ?? []) expect(existsSync(join(ROOT, path)), `${name}'s description names ${path}`).toBe(true);
    }
  });

  it("each script's entry file exists (a built file: its source)", () => {
    for (const [name, command] of Object.entries(pkg.scripts)) {
      const entry = scriptEntry(command);
      if (entry === undefined) continue;
      const source = entry.replace(/\/dist\//, '/src/').replace(/\.js$/, '.ts');
      expect(existsSync(join(ROOT, entry)) || existsSync(join(ROOT, source)), `npm run ${name}: ${entry}`).toBe(true);
    }
  });

  it('a script covered by a test: that test (or its support file) runs the script\'s entry', () => {
    for (const [name, coverage] of Object.entries(NPM_SCRIPT_COVERAGE)) {
      if (!('test' in coverage)) continue;
      const entry = scriptEntry(pkg.scripts[name]!)!;
      expect(entry, `npm run ${name} runs no file`).toBeDefined();
      const testText = read(coverage.test);
      const where = coverage.entryIn === undefined ? testText : read(coverage.entryIn);
      if (coverage.entryIn !== undefined) expect(testText, `${coverage.test} uses ${coverage.entryIn}`).toContain(coverage.entryIn.replace(/^test\//, './').replace(/\.ts$/, '.js'));
      // The entry as a path (spawned) or as an import (without its extension).
      expect(where, `${coverage.entryIn ?? coverage.test} runs ${entry} (npm run ${name})`).toContain(entry.replace(/\.(ts|js)$/, ''));
    }
  });

  it('the scripts CI reaches: .ci/run runs npm ci and npm test, which builds, lints and runs both vitest projects', () => {
    const ci = read('.ci/run');
    expect(ci).toMatch(/^npm ci$/m);
    expect(ci).toMatch(/^npm test$/m);
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.scripts.test).toBe('npm run build && npm run lint && vitest run');
    const projects = (vitestConfig.test?.projects ?? []) as Array<{ test: { name: string; include: string[]; exclude?: string[] } }>;
    const project = /--project (\S+)/.exec(pkg.scripts['test:quick']!)?.[1];
    expect(projects.map((p) => p.test.name)).toContain(project);
    // `vitest run` (npm test) runs every project: the quick files once, in the quick project.
    const rest = projects.find((p) => p.test.name !== project)!;
    expect(rest.test.include).toEqual(['test/**/*.test.ts']);
    expect(rest.test.exclude).toEqual(expect.arrayContaining(QUICK_TEST_FILES));
    for (const file of QUICK_TEST_FILES) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });
});
