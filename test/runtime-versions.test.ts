/**
 * Which Node runs what (issue 25). Lambda runs nodejs22.x and the AWS SDK needs Node 22 from
 * January 2027, so the repository runs on 22 as well, also where the machine has another Node: the
 * `node` dev dependency puts the release package.json pins first on every npm script's PATH
 * (node_modules/.bin/node), so `npm test`, `npx vitest`, `npm start` and the benches run on it.
 * Here: the tests run on it; the tools, Lambda's runtime, the bundles' target and the `engines` of
 * the repository and the server name one major; and `npm start` prints no warning (on Node 20 the
 * AWS SDK's "will require node >=22" came at every start). The hashing core promises older Node:
 * test/core-oldest-node.test.ts holds it to that.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { NODE_TARGET } from '../scripts/packaging/bundle-function.js';
import { killServers, startServer } from './support/local-server-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Manifest {
  engines?: { node?: string };
  devDependencies?: Record<string, string>;
}
const manifest = (path: string) => JSON.parse(read(path)) as Manifest;
const root = manifest('package.json');
const PINNED = root.devDependencies?.node;
const MAJOR = Number(PINNED?.split('.')[0]);

/** The first capture of `pattern` in `text`, as a number; fails naming `what` when absent. */
function majorIn(text: string, pattern: RegExp, what: string): number {
  const match = pattern.exec(text);
  if (!match) throw new Error(`${what}: no Node major found (${pattern})`);
  return Number(match[1]);
}

describe('the Node the repository runs on', () => {
  it('runs the tests on the release package.json pins, not the machine\'s', () => {
    expect(PINNED, 'package.json pins no `node` dev dependency').toMatch(/^\d+\.\d+\.\d+$/);
    expect(
      process.versions.node,
      `the tests run on ${process.execPath}; npm scripts and npx put node_modules/.bin/node (Node ${PINNED}) first on PATH, ` +
        'and npm install (npm ci) fetches it: run the tests through npm, or install again if it is missing',
    ).toBe(PINNED);
  });

  it('is the major of Lambda\'s runtime, the bundles\' target and what the repository and the server promise', () => {
    expect(MAJOR).toBe(22);
    expect(majorIn(read('serverless.yml'), /^\s*runtime: \$\{param:runtime, 'nodejs(\d+)\.x'\}/m, 'serverless.yml provider.runtime')).toBe(MAJOR);
    expect(NODE_TARGET).toBe(`node${MAJOR}`);
    expect(majorIn(read('scripts/build-package.mjs'), /target: 'node(\d+)'/, 'the CLI bundle (scripts/build-package.mjs)')).toBe(MAJOR);
    for (const path of ['package.json', 'packages/server/package.json']) {
      expect(manifest(path).engines?.node, path).toBe(`>=${MAJOR}`);
    }
  });
});

describe('npm start on it', () => {
  let dataDir: string | undefined;
  afterEach(killServers);
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('prints no warning from Node or a dependency, the AWS SDK\'s among them', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'passlane-versions-'));
    // Warnings shown (the other tests of npm start hide them), and DynamoDB and the hasher used once.
    const server = await startServer(dataDir, { NODE_NO_WARNINGS: '' });
    const response = await fetch(`${server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'versions@example.test', password: 'twenty-two on every host' }),
    });
    expect({ status: response.status, body: await response.text() }).toMatchObject({ status: 201 });
    expect(await server.interrupt()).toBe(0);
    expect(server.output()).not.toMatch(/\(node:\d+\) (\[\w+\] )?\w*Warning/);
  });
});
