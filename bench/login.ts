/**
 * npm run bench:login: CPU per login through the bundled login Lambda handler, against CPU per
 * bare verify of the same stored hash, in the same process, interleaved; and CPU per refresh
 * (POST /token) through the bundled token handler, next to it.
 *
 *   npm run bench:login -- [--quick] [--rounds 15] [--batch 10] [--warmup 1000] [--logs-off]
 *
 * The login, token, register, passkeyLogin and a small probe bundle (bench/login-worker.ts) are built fresh
 * with the packaging code (scripts/packaging), for this machine's architecture, as
 * `npm run package` builds them; the probe's files are copied next to the login handler's
 * index.mjs so both load the same native binding, and the token handler is loaded into the same
 * process from its own directory (its own chunks). dynalite runs in its own process (its CPU is
 * not counted) and counts the DynamoDB requests it serves.
 *
 * `login with TOTP` logs a fourth account, with TOTP on, in as a returning device does: the password
 * step (401 mfa_required) and POST /login/mfa with the current code, both in the figure; the bench
 * puts the account's used TOTP step back before each (outside the figure: a code works once).
 *
 * `passkey login` logs a fifth account in without a password, through the passkeyLogin
 * function's bundle loaded into the same process: POST /passkey/login/options, a software
 * authenticator's assertion (test/support/software-authenticator.ts; its ES256 signature, about
 * 0.1 ms, is the client's work but inside the figure) and POST /passkey/login. `login with a
 * passkey as second factor` logs a sixth in with its password, then the passkey at POST
 * /login/mfa (signing inside too). Both present their device token, as a returning device does.
 *
 * `login, token hook on` is `login (200)` through a second login handler process whose environment
 * adds PASSLANE_TOKEN_HOOK_URL: every login asks a receiver on loopback (in this process, its CPU
 * not counted, as dynalite's is not), signed per Standard Webhooks and verified there with the
 * `standardwebhooks` package, for claims it puts in the token. What the hook adds is the request
 * (signing, a local round trip, reading and checking the answer): a real hook's own time is its own.
 *
 * The login measurements present the device token of the account's last setup login, as a
 * returning browser (its cookie) or app (the field) does; its item holds the 10 devices its 10
 * setup logins made. `login, a new device` logs a third account in presenting none, as a
 * client's first login: a new device each (the oldest forgotten past PASSLANE_DEVICES_PER_ACCOUNT),
 * and one more write, the good login counted against its source.
 *
 * Two accounts: one logged in by the login measurements, one whose newest session the refresh
 * measurements refresh (its refresh token stays in the worker; each refresh replaces it). Both
 * are logged in up to PASSLANE_SESSIONS_PER_ACCOUNT (left at its default) before the warm-up,
 * so every measured login is the at-cap case (its write also ends the oldest session) and every
 * refresh reads a full sessions item. The handler's process gets the deployed Lambda environment
 * (pepper, RS256 signing key, INFO logs and EMF metrics, as serverless.yml leaves them): what it
 * writes to stdout is drained and dropped, never shown, and what logging costs is measured by a
 * probe. `--logs-off` runs it with POWERTOOLS_LOG_LEVEL=ERROR and POWERTOOLS_METRICS_DISABLED=true.
 *
 * First `--warmup` of each (1000), so what is measured is a warm container's steady state: V8
 * compiles hot functions with its optimising compiler on background threads, one by one as each
 * gets hot, for the first several hundred requests, and this process's CPU includes those threads
 * (here, after 10 of each a login cost ~2 CPU ms more than after 1000; docs/measurements.md, "Login CPU").
 * Rounds run one batch of every measurement, in an order rotated each round, so machine noise
 * hits all of them alike. CPU is process.cpuUsage() (user + system, all threads) of the process
 * running the handler, around each operation. A measurement: it exits 0 unless setup fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { LambdaArchitecture } from '../scripts/packaging/architectures.js';
import { bundleFunction } from '../scripts/packaging/bundle-function.js';
import { BUNDLE_FILE, LAMBDA_FUNCTIONS, type LambdaFunction } from '../scripts/packaging/lambda-functions.js';
import { resolveBindingPackages } from '../scripts/packaging/native-packages.js';
import { ms, textTable } from '../packages/server/src/cli/bench/format.js';
import { DEFAULT_SESSION_CONFIG } from '../packages/server/src/features/sessions/settings.js';
import { deployedLoginEnv, positiveOption } from './lambda-harness.js';
import { median, summarize } from '../packages/server/src/cli/bench/statistics.js';
import { BENCH_WEBAUTHN, type WorkerKind, type WorkerReplies, type WorkerReply, type WorkerRequest } from './login-worker.js';
import { newWebhookSecret, startHookReceiver } from '../test/support/hook-receiver.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORKER_FILE = 'bench-worker.mjs';

const USAGE = 'usage: npm run bench:login -- [--quick] [--rounds 15] [--batch 10] [--warmup 1000] [--logs-off]';

interface Measurement {
  label: string;
  kind: WorkerKind;
  /** Which handler process runs it: the one with the token hook on, or (unset) the usual one. */
  worker?: 'token-hook';
  expect: number;
  cpuMs: number[];
  wallMs: number[];
  /** DynamoDB requests dynalite served during this measurement's batches, by operation. */
  dynamoDb: Record<string, number>;
  statuses: Record<string, number>;
  /** Per round: the batch's median CPU, for ratios paired within a round. */
  roundCpu: number[];
  /** Lines the handler wrote to stdout (logs, EMF) during the batches. */
  stdoutLines: number;
}

const MEASUREMENTS: Array<Pick<Measurement, 'label' | 'kind' | 'expect' | 'worker'>> = [
  { label: 'bare verify (hasher.verify, native)', kind: 'verify', expect: 200 },
  { label: 'login (200)', kind: 'login', expect: 200 },
  { label: 'login, token hook on (a loopback receiver, its CPU not counted) (200)', kind: 'login', expect: 200, worker: 'token-hook' },
  { label: 'login, a new device (200)', kind: 'login-new-device', expect: 200 },
  { label: 'login with TOTP (401 mfa_required, then /login/mfa 200)', kind: 'login-totp', expect: 200 },
  { label: 'passkey login (options + /passkey/login 200; the client\'s signing, ~0.1 ms, inside)', kind: 'login-passkey', expect: 200 },
  { label: 'login with a passkey as second factor (401 mfa_required, then /login/mfa 200; signing inside)', kind: 'login-passkey-mfa', expect: 200 },
  { label: 'login, unknown email (401)', kind: 'login-unknown', expect: 401 },
  { label: 'refresh (200)', kind: 'refresh', expect: 200 },
  { label: 'refresh, wrong secret (400)', kind: 'refresh-bad', expect: 400 },
  { label: 'handler, malformed body (400)', kind: 'bad-request', expect: 400 },
  { label: 'DynamoDB GetItem, bare', kind: 'getitem', expect: 200 },
  { label: 'token signing, bare', kind: 'sign', expect: 200 },
  { label: 'audit log line + EMF flush, bare', kind: 'log', expect: 200 },
];

/** `name: message` of a Powertools error line's error (log lines hold no secrets; the rest is not needed). */
function errorOf(line: string): string {
  try {
    const { error } = JSON.parse(line) as { error?: { name?: string; message?: string } };
    return `${error?.name ?? 'error'}: ${error?.message ?? ''}`.slice(0, 300);
  } catch {
    return '';
  }
}

/** A child process spoken to over IPC, one request at a time. */
export class Child {
  private stderr = '';
  lastError = '';
  private exited: Promise<never>;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-2000);
    });
    // The handler's log and EMF lines: drained (a full pipe would block it) and never shown,
    // but for the name and message of the last logged error, to say why a handler failed.
    let partial = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.includes('"level":"ERROR"')) this.lastError = errorOf(line);
    });
    this.exited = new Promise<never>((_, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => reject(new Error(`${name} exited (code ${code}, signal ${signal}): ${this.stderrTail()}`)));
    });
    this.exited.catch(() => undefined);
  }

  stderrTail(): string {
    return this.stderr.trim().split('\n').slice(-5).join(' | ');
  }

  async next<T>(timeoutMs = 120_000): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reply = new Promise<T>((resolve) => this.child.once('message', (message) => resolve(message as T)));
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.name}: no answer in ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([reply, this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  stop(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

export class Worker extends Child {
  async request<R extends WorkerRequest>(request: R): Promise<WorkerReplies[R['op']]> {
    const answer = this.next<WorkerReply>();
    this.child.send(request);
    const reply = await answer;
    if (!reply.ok) throw new Error(`${this.name}: ${request.op} failed: ${reply.error}`);
    return reply as WorkerReplies[R['op']];
  }
}

/** dynalite in a process of its own, counting requests by operation (X-Amz-Target). */
const DYNALITE_SCRIPT = `
const server = require('dynalite')({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
const counts = {};
server.on('request', (req) => {
  const op = String(req.headers['x-amz-target'] || 'unknown').split('.').pop();
  counts[op] = (counts[op] || 0) + 1;
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', () => process.send({ counts }));
process.on('disconnect', () => process.exit(0));
`;

export async function startDynalite(): Promise<{ endpoint: string; counts(): Promise<Record<string, number>>; child: Child }> {
  const child = new Child('dynalite', spawn(process.execPath, ['-e', DYNALITE_SCRIPT], { cwd: root, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] }));
  const { port } = await child.next<{ port: number }>(30_000);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts: async () => {
      const answer = child.next<{ counts: Record<string, number> }>();
      child.child.send('counts');
      return { ...(await answer).counts };
    },
    child,
  };
}

/**
 * Login, token, register, passkeyLogin and the probe, bundled as `npm run package` bundles
 * functions; with `sourcemap`, each with its source maps beside it (bench/login-profile.ts).
 */
export async function buildBundles(
  buildDir: string,
  arch: LambdaArchitecture,
  options: { sourcemap?: boolean } = {},
): Promise<{ login: string; token: string; register: string; passkeyLogin: string }> {
  const bindings = resolveBindingPackages(root, arch, join(root, '.package', 'native-cache'));
  const fn = (name: string): LambdaFunction => {
    const found = LAMBDA_FUNCTIONS.find((f) => f.name === name);
    if (!found) throw new Error(`no Lambda function named ${name}`);
    return found;
  };
  const probe: LambdaFunction = { name: 'bench-login-worker', entry: 'bench/login-worker.ts' };
  const build = (f: LambdaFunction) => bundleFunction(f, { root, outDir: join(buildDir, f.name), arch, bindings, sourcemap: options.sourcemap === true });
  const [, , , , probeBundle] = await Promise.all([build(fn('login')), build(fn('token')), build(fn('register')), build(fn('passkeyLogin')), build(probe)]);
  for (const target of ['login', 'register']) {
    for (const file of probeBundle.files) {
      const from = join(buildDir, probe.name, file);
      const to = join(buildDir, target, file === BUNDLE_FILE ? WORKER_FILE : file === `${BUNDLE_FILE}.map` ? `${WORKER_FILE}.map` : file);
      // Chunks are named by content hash and the binary by name: a file already there is this one
      // (a chunk's source map may differ in its paths only, and is left as it is).
      if (!existsSync(to)) copyFileSync(from, to);
      else if (!file.endsWith('.map') && !readFileSync(from).equals(readFileSync(to))) throw new Error(`${file} differs between the probe and the ${target} bundle`);
    }
  }
  return { login: join(buildDir, 'login'), token: join(buildDir, 'token'), register: join(buildDir, 'register'), passkeyLogin: join(buildDir, 'passkeyLogin') };
}

export function startWorker(name: string, dir: string, env: Record<string, string | undefined>): Worker {
  const child = spawn(process.execPath, [join(dir, WORKER_FILE)], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  return new Worker(name, child);
}

const diff = (after: Record<string, number>, before: Record<string, number>): Array<[string, number]> =>
  Object.entries(after)
    .map(([op, count]): [string, number] => [op, count - (before[op] ?? 0)])
    .filter(([, count]) => count > 0);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      rounds: { type: 'string' },
      batch: { type: 'string' },
      warmup: { type: 'string' },
      'logs-off': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const quick = values.quick === true;
  const rounds = positiveOption('rounds', values.rounds, quick ? 4 : 15);
  const batch = positiveOption('batch', values.batch, quick ? 5 : 10);
  // A warm container's steady state: V8 keeps optimising functions on background threads for the
  // first several hundred requests, and that work would be charged to the operations measured.
  const warmup = positiveOption('warmup', values.warmup, quick ? 100 : 1000);
  const arch: LambdaArchitecture = process.arch === 'arm64' ? 'arm64' : 'x86_64';
  const loadAtStart = loadavg()[0] ?? 0;

  const buildDir = mkdtempSync(join(tmpdir(), 'passlane-bench-login-'));
  const children: Child[] = [];
  let stopReceiver: (() => Promise<void>) | undefined;
  try {
    console.error(`bench:login: bundling login, token and register for ${arch}`);
    const dirs = await buildBundles(buildDir, arch);
    const dynalite = await startDynalite();
    children.push(dynalite.child);

    // What serverless.yml gives the login function, with the secrets as plain values and the
    // login limits lifted: thousands of logins of one account from one address, hundreds of
    // refreshes of one session. The token handler runs with the same environment (it reads only
    // the table, the signing key and the session settings of it).
    const logsOff = values['logs-off'] === true;
    const env = await deployedLoginEnv({
      dynamoDbEndpoint: dynalite.endpoint,
      table: 'passlane-bench-login',
      extra: {
        // Passkeys on: the software authenticator answers from this origin.
        PASSLANE_WEBAUTHN_RP_ID: BENCH_WEBAUTHN.rpId,
        PASSLANE_WEBAUTHN_ORIGINS: BENCH_WEBAUTHN.origin,
        ...(logsOff && { POWERTOOLS_LOG_LEVEL: 'ERROR', POWERTOOLS_METRICS_DISABLED: 'true' }),
      },
    });

    // The accounts, one logged in, one refreshed, one logged in as new devices: registered
    // through the register handler, in a process of its own.
    const account = () => ({ email: `bench-${randomUUID()}@example.com`, password: `bench-${randomUUID()}` });
    const { email, password } = account();
    const refreshAccount = account();
    const newDeviceAccount = account();
    const totpAccount = account();
    const passkeyAccount = account();
    const passkeyMfaAccount = account();
    const hookAccount = account();
    const registrar = startWorker('register handler', dirs.register, env);
    children.push(registrar);
    await registrar.request({ op: 'init', handlerFile: join(dirs.register, BUNDLE_FILE) });
    for (const credentials of [{ email, password }, refreshAccount, newDeviceAccount, totpAccount, passkeyAccount, passkeyMfaAccount, hookAccount]) {
      const registered = await registrar.request({ op: 'register', ...credentials });
      if (registered.status !== 201) throw new Error(`registering a bench account answered ${registered.status}`);
    }
    registrar.stop();

    const worker = startWorker('login and token handlers', dirs.login, env);
    children.push(worker);
    await worker.request({
      op: 'init',
      handlerFile: join(dirs.login, BUNDLE_FILE),
      tokenHandlerFile: join(dirs.token, BUNDLE_FILE),
      passkeyLoginHandlerFile: join(dirs.passkeyLogin, BUNDLE_FILE),
    });
    const prepared = await worker.request({ op: 'prepare', email, password });
    if (prepared.needsRehash || prepared.description.scheme !== 'argon2id') {
      throw new Error(`the stored hash is not current argon2id (${prepared.description.scheme}, needs rehash: ${prepared.needsRehash})`);
    }
    const stored = `${prepared.description.scheme} ${prepared.description.parameters ?? ''}${prepared.description.pepperKeyId ? ', peppered' : ''}, ${prepared.backend} backend`;
    // Every account at PASSLANE_SESSIONS_PER_ACCOUNT before the warm-up (see the top of this file).
    console.error('bench:login: logging the accounts in up to their session limit');
    const { perAccount } = await worker.request({ op: 'fill-sessions', email, password, role: 'login' });
    await worker.request({ op: 'fill-sessions', ...refreshAccount, role: 'refresh' });
    await worker.request({ op: 'fill-sessions', ...newDeviceAccount, role: 'new-device' });
    // Its sessions filled with the password alone, then TOTP on: each measured login is two requests.
    await worker.request({ op: 'fill-sessions', ...totpAccount, role: 'totp' });
    await worker.request({ op: 'enrol-totp' });
    // The same for the passkey accounts: each measured login is a passkey's (and, for one, the password's).
    await worker.request({ op: 'fill-sessions', ...passkeyAccount, role: 'passkey' });
    await worker.request({ op: 'fill-sessions', ...passkeyMfaAccount, role: 'passkey-mfa' });
    await worker.request({ op: 'enrol-passkeys' });

    // The same login handler with the token hook on, in a process of its own (modules read the
    // environment once), its account also logged in up to the session limit.
    const hookSecret = newWebhookSecret();
    const receiver = await startHookReceiver(hookSecret, () => ({ body: { claims: { tenant: 'bench', roles: ['reader', 'writer'] } } }));
    stopReceiver = () => receiver.stop();
    const hookWorker = startWorker('login handler, token hook on', dirs.login, { ...env, PASSLANE_TOKEN_HOOK_URL: receiver.url, PASSLANE_TOKEN_HOOK_SECRETS: hookSecret });
    children.push(hookWorker);
    await hookWorker.request({ op: 'init', handlerFile: join(dirs.login, BUNDLE_FILE) });
    await hookWorker.request({ op: 'prepare', ...hookAccount });
    await hookWorker.request({ op: 'fill-sessions', ...hookAccount, role: 'login' });
    const workerOf = (m: Measurement) => (m.worker === 'token-hook' ? hookWorker : worker);

    const measurements: Measurement[] = MEASUREMENTS.map((m) => ({ ...m, cpuMs: [], wallMs: [], dynamoDb: {}, statuses: {}, roundCpu: [], stdoutLines: 0 }));
    console.error(`bench:login: warm-up (${warmup} of each), then ${rounds} rounds x ${batch} of each, interleaved`);
    for (const m of measurements) {
      const reply = await workerOf(m).request({ op: 'batch', kind: m.kind, n: warmup, expect: m.expect });
      // A broken handler answers fast: its figures would look like a met target.
      if (reply.unexpected !== undefined) {
        const logged = workerOf(m).lastError;
        throw new Error(`${m.label}: expected ${m.expect}, got ${reply.unexpected}${logged ? `; the handler logged ${logged}` : ''}`);
      }
    }
    for (let round = 0; round < rounds; round++) {
      // Rotated each round: drift in machine load and "who ran just before" spread over all alike.
      const order = measurements.map((_, i) => measurements[(i + round) % measurements.length]!);
      for (const m of order) {
        const before = await dynalite.counts();
        const reply = await workerOf(m).request({ op: 'batch', kind: m.kind, n: batch, expect: m.expect });
        const after = await dynalite.counts();
        m.cpuMs.push(...reply.cpuMs);
        m.wallMs.push(...reply.wallMs);
        m.roundCpu.push(median(reply.cpuMs));
        m.stdoutLines += reply.stdoutLines;
        for (const [status, count] of Object.entries(reply.statuses)) m.statuses[status] = (m.statuses[status] ?? 0) + count;
        for (const [op, count] of diff(after, before)) m.dynamoDb[op] = (m.dynamoDb[op] ?? 0) + count;
      }
    }
    const asked = receiver.received.length;
    if (receiver.received.some((request) => request.event === undefined)) throw new Error('a request to the token hook did not verify with standardwebhooks');
    report(measurements, { arch, warmup, rounds, batch, loadAtStart, stored, logsOff, perAccount, hookRequests: asked });
  } finally {
    for (const child of children) child.stop();
    await stopReceiver?.();
    rmSync(buildDir, { recursive: true, force: true });
  }
}

interface ReportContext {
  arch: string;
  /** Operations of each kind before the measured rounds. */
  warmup: number;
  rounds: number;
  batch: number;
  loadAtStart: number;
  stored: string;
  logsOff: boolean;
  /** PASSLANE_SESSIONS_PER_ACCOUNT as the handlers read it. */
  perAccount: number;
  /** Requests the token hook's receiver verified, warm-up and setup included. */
  hookRequests: number;
}

function report(measurements: Measurement[], context: ReportContext): void {
  const find = (kind: WorkerKind) => measurements.find((m) => m.kind === kind)!;
  const cpuOf = (m: Measurement) => median(m.cpuMs);
  const verify = find('verify');
  const verifyCpu = cpuOf(verify);
  const perOp = (m: Measurement) => {
    const n = m.cpuMs.length;
    // By name: the same order in every row (and here reads before writes).
    const ops = Object.entries(m.dynamoDb)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([op, count]) => `${op} ${+(count / n).toFixed(2)}`);
    return ops.length ? ops.join(', ') : '-';
  };
  const unexpected = (m: Measurement) =>
    Object.entries(m.statuses)
      .filter(([status]) => Number(status) !== m.expect)
      .map(([status, count]) => `${status}:${count}`)
      .join(' ');
  const rows = measurements.map((m) => {
    const cpu = summarize(m.cpuMs, { resamples: 1000 });
    return [
      m.label,
      String(cpu.n),
      ms(cpu.median),
      `${ms(cpu.medianCi95[0])}-${ms(cpu.medianCi95[1])}`,
      `${(cpu.median / verifyCpu).toFixed(2)}x`,
      ms(median(m.wallMs)),
      perOp(m),
      m.stdoutLines ? (m.stdoutLines / m.cpuMs.length).toFixed(1) : '-',
      unexpected(m) || 'ok',
    ];
  });

  const login = measurements.find((m) => m.kind === 'login' && m.worker === undefined)!;
  const hooked = measurements.find((m) => m.worker === 'token-hook')!;
  const ratio = cpuOf(login) / verifyCpu;
  const paired = login.roundCpu.map((cpu, i) => cpu / verify.roundCpu[i]!);
  const invalid = measurements.filter((m) => unexpected(m) !== '').map((m) => m.label);
  const verdict = invalid.length ? 'not judged: unexpected answers' : ratio <= 1.25 ? 'met' : 'not met';

  // Where the CPU above the verify goes, from the bare probes in the same process.
  const requestsOf = (m: Measurement) => Object.values(m.dynamoDb).reduce((a, b) => a + b, 0) / m.cpuMs.length;
  const partsOf = (m: Measurement): Array<[string, number]> => [
    [`DynamoDB (${+requestsOf(m).toFixed(2)} request(s) at a bare GetItem's cost)`, cpuOf(find('getitem')) * requestsOf(m)],
    ['token signing', cpuOf(find('sign'))],
    ['handler floor (the 400: middy, Powertools, hono)', cpuOf(find('bad-request'))],
    ...(context.logsOff ? [] : [['audit line + EMF flush', cpuOf(find('log'))] as [string, number]]),
  ];
  const breakdown = (total: number, parts: Array<[string, number]>) =>
    `${parts.map(([what, cpu]) => `${what} ${ms(cpu)}`).join(' + ')} + rest ${ms(total - parts.reduce((sum, [, cpu]) => sum + cpu, 0))}`;
  const above = cpuOf(login) - verifyCpu;

  // A refresh next to a login: no hashing, a read and a write, the access token's signature.
  const refresh = find('refresh');
  const requestsEach = (m: Measurement) => `${+requestsOf(m).toFixed(2)} requests: ${perOp(m)}`;
  const refreshPaired = refresh.roundCpu.map((cpu, i) => cpu / login.roundCpu[i]!);
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const lines = [
    `login CPU through the bundled ${context.arch} login handler: node ${process.version}, ${model}, ${cpus().length} cores, load ${context.loadAtStart.toFixed(2)} at start`,
    `stored hash: ${context.stored}; handler logs: ${context.logsOff ? 'off (POWERTOOLS_LOG_LEVEL=ERROR, POWERTOOLS_METRICS_DISABLED=true)' : 'as deployed (INFO, EMF), dropped unseen'}`,
    `${context.warmup} of each first (warm-up), then ${context.rounds} rounds x ${context.batch} of each, interleaved; CPU = user + system of the handler's process, per operation`,
    `sessions: PASSLANE_SESSIONS_PER_ACCOUNT ${context.perAccount}${context.perAccount === DEFAULT_SESSION_CONFIG.perAccount ? ' (the default)' : ''}, both accounts logged in up to it before the warm-up: ` +
      `every login measured also ends its account's oldest session in its write (the at-cap case), every refresh reads an item of ${context.perAccount} sessions`,
    '',
    textTable(['measured', 'n', 'CPU ms', '95% CI', 'vs verify', 'wall ms', 'DynamoDB requests each', 'log lines each', 'status'], rows),
    '',
    `login / verify, CPU medians: ${ratio.toFixed(2)}x (target <= 1.25x: ${verdict}); paired within each round: ` +
      `${median(paired).toFixed(2)}x (${Math.min(...paired).toFixed(2)}-${Math.max(...paired).toFixed(2)})`,
    `above verify: ${ms(above)} CPU ms per login ~ ${breakdown(above, partsOf(login))}`,
    `token hook: ${ms(cpuOf(hooked) - cpuOf(login))} CPU ms more per login (${ms(cpuOf(hooked))} vs ${ms(cpuOf(login))}), ` +
      `wall ${ms(median(hooked.wallMs))} vs ${ms(median(login.wallMs))} ms; ${context.hookRequests} requests verified by the receiver (setup and warm-up included)`,
    `refresh: ${ms(cpuOf(refresh))} CPU ms (${requestsEach(refresh)}) vs login ${ms(cpuOf(login))} CPU ms (${requestsEach(login)}): ` +
      `${(cpuOf(refresh) / cpuOf(login)).toFixed(2)}x a login; paired within each round: ${median(refreshPaired).toFixed(2)}x ` +
      `(${Math.min(...refreshPaired).toFixed(2)}-${Math.max(...refreshPaired).toFixed(2)})`,
    `per refresh: ${ms(cpuOf(refresh))} CPU ms ~ ${breakdown(cpuOf(refresh), partsOf(refresh))} (the floor is the login handler's 400; a refresh hashes only with SHA-256)`,
    ...(invalid.length ? [`UNEXPECTED ANSWERS (see status) in: ${invalid.join('; ')}: those rows do not measure what they say.`] : []),
    'Medians of per-operation samples; the interval is a bootstrap 95% interval of the median. No Lambda runtime',
    '(event polling, init) is included: the handler is called directly, as the runtime would, in a warm process.',
  ];
  console.log(lines.join('\n'));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(`bench:login: ${error instanceof Error ? error.message : String(error)}`);
    console.error(USAGE);
    process.exitCode = 1;
  });
}
