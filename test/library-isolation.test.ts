/**
 * A consumer of the hashing core (`import ... from 'passlane'`, packages/passlane) must not pull in
 * the Lambda/server stack: no AWS SDK, Smithy, Middy, Powertools or Hono, nor anything of the
 * server package. Resolved the way a user's bundler does, through package.json `exports` against
 * dist/ (built before tests run), for Node and for the edge conditions. The server package
 * (@passlane/server) loads each of its subpaths in Node the same way.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from './support/run-process.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const FORBIDDEN = ['@aws-sdk/', '@smithy/', '@middy/', '@aws-lambda-powertools/', 'node_modules/hono/', 'packages/server/'];
// Metafile inputs are relative to absWorkingDir; dist/ here proves `exports` was used, not src/.
const HASHER = 'packages/passlane/dist/create-password-hasher.js';

let consumerDir: string;
let outdir: string;
let consumer: string;

beforeAll(async () => {
  // Inside the repo, so the bare `passlane` resolves through the workspace's link, and `exports`.
  consumerDir = await mkdtemp(join(root, '.tmp-consumer-'));
  outdir = await mkdtemp(join(tmpdir(), 'passlane-isolation-'));
  consumer = join(consumerDir, 'consumer.mjs');
  await writeFile(consumer, "import { createPasswordHasher } from 'passlane'; console.log(typeof createPasswordHasher);\n");
});

afterAll(async () => {
  if (consumerDir) await rm(consumerDir, { recursive: true, force: true });
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

async function inputsOf(options: BuildOptions): Promise<string[]> {
  const result = await build({
    entryPoints: [consumer],
    absWorkingDir: root,
    bundle: true,
    format: 'esm',
    metafile: true,
    logLevel: 'silent',
    ...options,
  });
  return Object.keys((result.metafile as Metafile).inputs);
}

function expectIsolated(inputs: string[], entry: string): void {
  expect(inputs).toContain(entry);
  expect(inputs).toContain(HASHER);
  expect(inputs.filter((input) => FORBIDDEN.some((pattern) => input.includes(pattern)))).toEqual([]);
}

describe('the library entry pulls in no Lambda or server dependency', () => {
  it('on Node', async () => {
    // The @node-rs loaders require a platform `.node` binary; its contents do not matter here.
    const inputs = await inputsOf({ platform: 'node', write: false, outdir, loader: { '.node': 'empty' } });
    expectIsolated(inputs, 'packages/passlane/dist/index.js');
  });

  it('on edge runtimes (workerd, worker, browser conditions)', async () => {
    const inputs = await inputsOf({
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      loader: { '.wasm': 'copy' },
      outdir,
    });
    expectIsolated(inputs, 'packages/passlane/dist/edge.js');
  });
});

describe('the server package behind its subpaths', () => {
  // What each subpath must provide; loaded by Node through package.json `exports` (the workspace's link).
  const SUBPATHS: Record<string, string[]> = {
    '@passlane/server/api': ['createApi', 'defineRoute', 'parseBody', 'jsonResponse', 'toWebResponse'],
    '@passlane/server/config': ['readConfig', 'readServerConfig', 'ConfigError'],
    '@passlane/server/wiring': ['API_ROUTES', 'buildAuthDependencies', 'buildRehashDependencies', 'servicesOf'],
    '@passlane/server/storage': ['AccountStore', 'LoginGuardStore', 'RateLimitStore', 'JobCursorStore', 'ensureTable'],
    '@passlane/server/tokens': ['createTokenService', 'tokenServiceFromConfig', 'generateSigningKey'],
    '@passlane/server/runtimes/lambda': ['lambdaHandler'],
    '@passlane/server/runtimes/node': ['serveOnNode', 'nodePlatform'],
    '@passlane/server/runtimes/fetch-server': ['createFetchServerApi'],
  };

  it('each subpath loads in Node and exports what it promises', async () => {
    const script = `
      const wanted = ${JSON.stringify(SUBPATHS)};
      const missing = [];
      for (const [subpath, names] of Object.entries(wanted)) {
        const module = await import(subpath);
        for (const name of names) if (module[name] === undefined) missing.push(subpath + ' ' + name);
      }
      console.log(JSON.stringify(missing));`;
    const run = await runNode(['--input-type=module', '--no-warnings', '-e', script], { cwd: root, env: { POWERTOOLS_METRICS_DISABLED: 'true' } });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([]);
  });
});
