/**
 * The import graph of both packages (the bench engine in the server's CLI) and the Lambda entries, read by
 * dependency-cruiser (type-only imports included): no import cycles; the hashing core
 * (packages/passlane) imports nothing of the server; the server reaches the core only through its
 * package name (`passlane`, as an installed package would), never into its files; neither package
 * reaches into the entry points, scripts, tests or the benchmarks around it; the server's config (the environment's readers) stands above the settings it
 * fills (shared, storage, mail, accounts, api, features, observability own their types) and below
 * the wiring and the runtimes that use it; and the server is a house of floors (LAYERS), each
 * folder importing only its own floor and those below: the HTTP toolkit knows no feature, a
 * feature no host, wiring or environment, and a use case no HTTP; and between features the
 * arrows run one way: no two features import each other, even through files that form no cycle.
 */
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The server's floors (packages/server/src, from the ground up; the root README's "Layout"): a folder
 * may import its own floor and those below, never one above.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['shared', 'events'],
  ['storage', 'mail', 'hooks'],
  ['accounts'],
  ['webauthn'],
  ['api'],
  ['features'],
  ['observability'],
  ['config'],
  ['wiring'],
  ['runtimes'],
  ['cli', 'cdk'],
];

let result: ICruiseResult;

beforeAll(async () => {
  const { output } = await cruise(
    ['packages/passlane/src', 'packages/server/src', 'functions'],
    {
      baseDir: ROOT,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      validate: true,
      ruleSet: {
        forbidden: [
          { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
          { name: 'core-imports-server', severity: 'error', from: { path: '^packages/passlane/' }, to: { path: '^packages/server/' } },
          // `passlane` resolves (through its workspace link) to the core's sources; anything else is a path into it.
          {
            name: 'server-imports-core-files',
            severity: 'error',
            from: { path: '^packages/server/' },
            to: { path: '^packages/passlane/src/', pathNot: '^packages/passlane/src/(index|edge|public-api|encoding|detect-runtime|backends/index)\\.ts$' },
          },
          {
            name: 'packages-import-outside',
            severity: 'error',
            from: { path: '^packages/' },
            to: { path: '^(functions|bench|test|scripts)/' },
          },
          { name: 'library-imports-cli', severity: 'error', from: { path: '^packages/server/src/', pathNot: '^packages/server/src/cli/' }, to: { path: '^packages/server/src/cli/' } },
          // The HTTP toolkit (and its error table) is written once for every host: it knows no env reader, wiring or host.
          { name: 'api-imports-hosts', severity: 'error', from: { path: '^packages/server/src/api/' }, to: { path: '^packages/server/src/(config|wiring|runtimes)/' } },
          // Config at the top: the environment's readers fill settings types that the parts below own.
          {
            name: 'below-config-imports-config',
            severity: 'error',
            from: { path: '^packages/server/src/(shared|storage|mail|accounts|webauthn|api|features|observability)/' },
            to: { path: '^packages/server/src/config/' },
          },
          { name: 'config-imports-above', severity: 'error', from: { path: '^packages/server/src/config/' }, to: { path: '^packages/server/src/(wiring|runtimes|cli|cdk)/' } },
          // The server's house, floor by floor: nothing imports a floor above its own (LAYERS).
          ...LAYERS.slice(0, -1).map((floor, index) => ({
            name: `layer-${floor.join('-')}-imports-above`,
            severity: 'error' as const,
            from: { path: `^packages/server/src/(${floor.join('|')})/` },
            to: { path: `^packages/server/src/(${LAYERS.slice(index + 1).flat().join('|')})/` },
          })),
          // The HTTP toolkit knows no feature: the routes are the features', their list the wiring's.
          { name: 'api-imports-features', severity: 'error', from: { path: '^packages/server/src/api/' }, to: { path: '^packages/server/src/features/' } },
          // A feature knows no host and no environment: the wiring builds it from typed settings.
          {
            name: 'features-import-hosts',
            severity: 'error',
            from: { path: '^packages/server/src/features/' },
            to: { path: '^packages/server/src/(runtimes|wiring|config)/' },
          },
          // Use cases know no HTTP: only a feature's routes (and their schemas, and the login's cookie) speak it.
          {
            name: 'use-cases-import-http',
            severity: 'error',
            from: { path: '^packages/server/src/features/', pathNot: '(-routes?|-schemas|device-cookie)\\.ts$' },
            to: { path: '^(packages/server/src/api/|node_modules/hono/)' },
          },
        ],
      },
    },
    // NodeNext: `./x.js` in an import is `./x.ts` on disk; the core's `passlane-source` condition.
    { extensionAlias: { '.js': ['.ts', '.js'] }, conditionNames: ['passlane-source', 'import', 'node', 'default'] },
  );
  result = output as ICruiseResult;
}, 60_000);

const violationsOf = (rule: string): IViolation[] => result.summary.violations.filter((v) => v.rule.name === rule);
const describeViolation = (v: IViolation): string => [v.from, ...(v.cycle ?? [{ name: v.to }]).map((step) => step.name)].join(' -> ');

describe('import graph (dependency-cruiser)', () => {
  it('resolves every relative import (an unresolved one would hide its edges)', () => {
    const sources = result.modules.map((m) => m.source);
    expect(sources).toEqual(expect.arrayContaining(['packages/passlane/src/index.ts', 'functions/login.ts', 'packages/server/src/runtimes/workers/worker.ts', 'packages/server/src/runtimes/deno/deno.ts']));
    // The server's `passlane` imports land on the core's sources, so their edges are in the graph.
    expect(sources).not.toContain('node_modules/passlane/dist/index.js');
    const unresolved = result.modules.flatMap((m) =>
      m.dependencies.filter((d) => d.couldNotResolve && d.module.startsWith('.')).map((d) => `${m.source} -> ${d.module}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('has no import cycles', () => {
    expect(violationsOf('no-circular').map(describeViolation)).toEqual([]);
  });

  it('keeps the hashing core free of the server, and the server on the core\'s package name', () => {
    expect(violationsOf('core-imports-server').map(describeViolation)).toEqual([]);
    expect(violationsOf('server-imports-core-files').map(describeViolation)).toEqual([]);
  });

  it('keeps the packages from importing functions/, bench/, scripts/ or test/ (the CLI included: its bench engine is its own)', () => {
    expect(violationsOf('packages-import-outside').map(describeViolation)).toEqual([]);
  });

  it('keeps the library from importing the CLI', () => {
    expect(violationsOf('library-imports-cli').map(describeViolation)).toEqual([]);
  });

  it('keeps the HTTP toolkit from importing config, wiring or a runtime', () => {
    expect(violationsOf('api-imports-hosts').map(describeViolation)).toEqual([]);
  });

  it('keeps every folder of the server on its floor: no import points up', () => {
    const upward = result.summary.violations.filter((v) => v.rule.name.startsWith('layer-'));
    expect(upward.map(describeViolation)).toEqual([]);
    // Every floor has its rule, and the rules read every folder of the server.
    expect(new Set(LAYERS.flat())).toEqual(new Set(readdirSync(join(ROOT, 'packages/server/src'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)));
  });

  it('keeps the HTTP toolkit free of features, features free of hosts, and use cases free of HTTP', () => {
    expect(violationsOf('api-imports-features').map(describeViolation)).toEqual([]);
    expect(violationsOf('features-import-hosts').map(describeViolation)).toEqual([]);
    expect(violationsOf('use-cases-import-http').map(describeViolation)).toEqual([]);
  });

  it('keeps the arrows between features one way: no two features import each other', () => {
    const feature = (path: string) => /^packages\/server\/src\/features\/([^/]+)\//.exec(path)?.[1];
    const arrows = new Set(
      result.modules.flatMap((m) => {
        const from = feature(m.source);
        return from === undefined ? [] : m.dependencies.map((d) => feature(d.resolved)).filter((to) => to !== undefined && to !== from).map((to) => `${from} -> ${to}`);
      }),
    );
    // The rule reads the features' arrows at all (login's use of sessions is one).
    expect(arrows).toContain('login -> sessions');
    const both = [...arrows].filter((arrow) => arrow.split(' -> ')[0]! < arrow.split(' -> ')[1]! && arrows.has(arrow.split(' -> ').reverse().join(' -> ')));
    expect(both.map((arrow) => arrow.replace(' -> ', ' <-> '))).toEqual([]);
  });

  it('keeps config above what it configures: nothing below imports it, and it imports nothing above', () => {
    expect(violationsOf('below-config-imports-config').map(describeViolation)).toEqual([]);
    expect(violationsOf('config-imports-above').map(describeViolation)).toEqual([]);
  });
});
