/**
 * npx tsx bench/login-ab.ts: what each optimisation of the login path saves, each measured with and
 * without it in one warm process, in `npm run bench:login`'s conditions (the bundled code, the
 * deployed Lambda environment, dynalite in a process of its own, an account at its session cap
 * presenting its device token, 1000 of each first).
 *
 *   npx tsx bench/login-ab.ts [--quick] [--rounds 30] [--batch 10] [--warmup 1000]
 *
 * The pairs (bench/login-ab-worker.ts builds both sides of each from the same bundle):
 * - DynamoDB short path (src/runtimes/lambda/direct-requests.ts): logins through the login handler over
 *   the functions' client against the same handler over a plain SDK client; bare GetItems too;
 * - the SDK's middleware cache (`cacheMiddleware`): bare GetItems of plain SDK clients;
 * - streamless bodies (src/runtimes/lambda/text-response.ts): logins through hono's Lambda adapter
 *   with and without the seam;
 * - the platform's JWS signer: logins through the login handler with node:crypto's and with Web
 *   Crypto's; bare RS256 access tokens through each.
 *
 * Rounds run one batch of each, in an order rotated each round; a pair's difference is taken per
 * round (median of one batch against the other's) so slow drift of the machine's load cancels. A
 * measurement: it exits 0 unless setup fails.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { LambdaArchitecture } from '../scripts/packaging/architectures.js';
import { bundleFunction } from '../scripts/packaging/bundle-function.js';
import { BUNDLE_FILE } from '../scripts/packaging/lambda-functions.js';
import { resolveBindingPackages } from '../scripts/packaging/native-packages.js';
import { ms, textTable } from '../packages/server/src/cli/bench/format.js';
import { median, quantile } from '../packages/server/src/cli/bench/statistics.js';
import { deployedLoginEnv, positiveOption } from './lambda-harness.js';
import { Child, startDynalite } from './login.js';
import type { AbKind, AbReplies, AbReply, AbRequest } from './login-ab-worker.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: npx tsx bench/login-ab.ts [--quick] [--rounds 30] [--batch 10] [--warmup 1000]';

const KINDS: Array<{ kind: AbKind; label: string }> = [
  { kind: 'verify', label: 'bare verify (hasher.verify, native)' },
  { kind: 'login', label: 'login: the Lambda handler as shipped' },
  { kind: 'login-sdk', label: "login: the same, the SDK's full path" },
  { kind: 'login-webcrypto', label: 'login: the same, Web Crypto signer' },
  { kind: 'login-streamless', label: "login: hono's adapter, streamless bodies" },
  { kind: 'login-streams', label: "login: hono's adapter, web Request/Response" },
  { kind: 'getitem', label: "GetItem: the functions' client" },
  { kind: 'getitem-sdk', label: 'GetItem: plain SDK client' },
  { kind: 'getitem-sdk-uncached', label: 'GetItem: plain SDK client, no middleware cache' },
  { kind: 'sign-node', label: 'access token: node:crypto signer' },
  { kind: 'sign-webcrypto', label: 'access token: Web Crypto signer' },
];

/** [with the optimisation, without it, what is compared, requests per operation]. */
const PAIRS: Array<{ with: AbKind; without: AbKind; what: string; per?: number }> = [
  { with: 'login', without: 'login-sdk', what: 'DynamoDB short path, per login (2 requests)' },
  { with: 'login', without: 'login-sdk', what: 'DynamoDB short path, per request in a login', per: 2 },
  { with: 'getitem', without: 'getitem-sdk', what: 'DynamoDB short path, per bare GetItem' },
  { with: 'getitem-sdk', without: 'getitem-sdk-uncached', what: 'SDK middleware cache, per bare GetItem' },
  { with: 'login-streamless', without: 'login-streams', what: 'streamless bodies, per login' },
  { with: 'login', without: 'login-webcrypto', what: 'node:crypto signer, per login' },
  { with: 'sign-node', without: 'sign-webcrypto', what: 'node:crypto signer, per bare RS256 token' },
];

class AbWorker extends Child {
  async request<R extends AbRequest>(request: R): Promise<AbReplies[R['op']]> {
    const answer = this.next<AbReply>();
    this.child.send(request);
    const reply = await answer;
    if (!reply.ok) throw new Error(`${this.name}: ${request.op} failed: ${reply.error}`);
    return reply as AbReplies[R['op']];
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean' }, rounds: { type: 'string' }, batch: { type: 'string' }, warmup: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const quick = values.quick === true;
  const rounds = positiveOption('rounds', values.rounds, quick ? 4 : 30);
  const batch = positiveOption('batch', values.batch, quick ? 5 : 10);
  const warmup = positiveOption('warmup', values.warmup, quick ? 100 : 1000);
  const arch: LambdaArchitecture = process.arch === 'arm64' ? 'arm64' : 'x86_64';
  const loadAtStart = loadavg()[0] ?? 0;

  const buildDir = mkdtempSync(join(tmpdir(), 'passlane-bench-login-ab-'));
  const children: Child[] = [];
  try {
    console.error(`bench/login-ab: bundling for ${arch}`);
    const bindings = resolveBindingPackages(root, arch, join(root, '.package', 'native-cache'));
    await bundleFunction({ name: 'bench-login-ab', entry: 'bench/login-ab-worker.ts' }, { root, outDir: buildDir, arch, bindings });
    const dynalite = await startDynalite();
    children.push(dynalite.child);

    // What serverless.yml gives the login function, as bench/login.ts sets it.
    const env = await deployedLoginEnv({ dynamoDbEndpoint: dynalite.endpoint, table: 'passlane-bench-login-ab' });
    const child = spawn(process.execPath, [join(buildDir, BUNDLE_FILE)], { cwd: buildDir, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    // The handler's log and EMF lines: drained, never shown.
    child.stdout?.resume();
    const worker = new AbWorker('login A/B worker', child);
    children.push(worker);
    const { perAccount } = await worker.request({ op: 'init', email: `bench-${randomUUID()}@example.com`, password: `bench-${randomUUID()}` });

    const samples = new Map<AbKind, { cpuMs: number[]; roundCpu: number[] }>(KINDS.map(({ kind }) => [kind, { cpuMs: [], roundCpu: [] }]));
    const run = async (kind: AbKind, n: number) => {
      const reply = await worker.request({ op: 'batch', kind, n, expect: 200 });
      if (reply.unexpected !== undefined) throw new Error(`${kind}: expected 200, got ${reply.unexpected}`);
      return reply;
    };
    console.error(`bench/login-ab: warm-up (${warmup} of each), then ${rounds} rounds x ${batch} of each, interleaved`);
    for (const { kind } of KINDS) await run(kind, warmup);
    for (let round = 0; round < rounds; round++) {
      const order = KINDS.map((_, i) => KINDS[(i + round) % KINDS.length]!);
      for (const { kind } of order) {
        const { cpuMs } = await run(kind, batch);
        const sample = samples.get(kind)!;
        sample.cpuMs.push(...cpuMs);
        sample.roundCpu.push(median(cpuMs));
      }
    }

    const cpuOf = (kind: AbKind) => median(samples.get(kind)!.cpuMs);
    const verify = cpuOf('verify');
    const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
    console.log(`login A/B in one process, bundled for ${arch}: node ${process.version}, ${model}, ${cpus().length} cores, load ${loadAtStart.toFixed(2)} at start`);
    console.log(`${warmup} of each first, then ${rounds} rounds x ${batch} of each, rotated; sessions at the cap (${perAccount}), a returning device`);
    console.log('');
    console.log(textTable(['measured', 'n', 'CPU ms', 'vs verify'], KINDS.map(({ kind, label }) => [label, String(samples.get(kind)!.cpuMs.length), ms(cpuOf(kind)), `${(cpuOf(kind) / verify).toFixed(3)}x`])));
    console.log('');
    const rows = PAIRS.map((pair) => {
      const per = pair.per ?? 1;
      const [a, b] = [samples.get(pair.with)!.roundCpu, samples.get(pair.without)!.roundCpu];
      const saved = a.map((cpu, i) => (b[i]! - cpu) / per);
      return [pair.what, ms((cpuOf(pair.without) - cpuOf(pair.with)) / per), ms(median(saved)), `${ms(quantile(saved, 0.25))} to ${ms(quantile(saved, 0.75))}`, `${ms(Math.min(...saved))} to ${ms(Math.max(...saved))}`];
    });
    console.log(textTable(['saved CPU ms', 'medians', 'per round, median', 'quartiles', 'range'], rows));
    console.log('Positive: the optimisation saves that much. Per round: the medians of one batch of each side in the same round.');
  } finally {
    for (const child of children) child.stop();
    rmSync(buildDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(`bench/login-ab: ${error instanceof Error ? error.message : String(error)}`);
    console.error(USAGE);
    process.exitCode = 1;
  });
}
