/**
 * The import graph of src/, functions/ and bench/engine/, read by dependency-cruiser (type-only
 * imports included): no import cycles, and src/ never reaches into the entry points, scripts or
 * tests around it, nor the library into the CLI and the bench (which the library build leaves
 * out; the CLI bundles the bench engine).
 */
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));


let result: ICruiseResult;

beforeAll(async () => {
  const { output } = await cruise(
    ['src', 'functions', 'bench/engine'],
    {
      baseDir: ROOT,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      validate: true,
      ruleSet: {
        forbidden: [
          { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
          { name: 'src-imports-outside-src', severity: 'error', from: { path: '^src/', pathNot: '^src/cli/' }, to: { path: '^(functions|bench|test|scripts)/' } },
          { name: 'library-imports-cli-or-bench', severity: 'error', from: { path: '^src/', pathNot: '^src/cli/' }, to: { path: '^(src/cli|bench)/' } },
        ],
      },
    },
    // NodeNext: `./x.js` in an import is `./x.ts` on disk.
    { extensionAlias: { '.js': ['.ts', '.js'] } },
  );
  result = output as ICruiseResult;
}, 60_000);

const violationsOf = (rule: string): IViolation[] => result.summary.violations.filter((v) => v.rule.name === rule);
const describeViolation = (v: IViolation): string => [v.from, ...(v.cycle ?? [{ name: v.to }]).map((step) => step.name)].join(' -> ');

describe('import graph (dependency-cruiser)', () => {
  it('resolves every relative import (an unresolved one would hide its edges)', () => {
    expect(result.modules.map((m) => m.source)).toEqual(expect.arrayContaining(['src/index.ts', 'functions/login.ts', 'src/runtimes/workers/worker.ts', 'src/runtimes/deno/deno.ts']));
    const unresolved = result.modules.flatMap((m) =>
      m.dependencies.filter((d) => d.couldNotResolve && d.module.startsWith('.')).map((d) => `${m.source} -> ${d.module}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('has no import cycles', () => {
    expect(violationsOf('no-circular').map(describeViolation)).toEqual([]);
  });

  it('keeps src/ from importing functions/, bench/, scripts/ or test/', () => {
    expect(violationsOf('src-imports-outside-src').map(describeViolation)).toEqual([]);
  });

  it('keeps the library from importing the CLI or the bench', () => {
    expect(violationsOf('library-imports-cli-or-bench').map(describeViolation)).toEqual([]);
  });
});
