/**
 * `npm run bench:timing`: how long a failed login takes for each kind of account, so nobody can
 * tell by time which emails exist or which accounts were imported (packages/passlane/SECURITY.md).
 * Through the real login use-case, wired as every host wires it (src/wiring), against dynalite,
 * at OWASP parameters, with a bcrypt-12 record and the same record wrapped by `passlane rehash`.
 * Each round times every kind twice: as it comes, and right after SUCCESSES successful logins
 * to an argon2id account of the attacker's own (issue 24: such logins once emptied the ring of
 * recent verify costs, and an unknown email then answered 4x faster than a bcrypt-12 account),
 * that time with the unknown email first. The kinds are interleaved round by round so machine
 * noise hits them alike; medians print side by side with their ratio to an unknown email.
 * Target: every ratio within 1 ± 0.15. Last, the failure timing's own work per login (its shape
 * key and bookkeeping) against a verify: target under 3%.
 *   ROUNDS=n (default 15) rounds after one warm-up round; SUCCESSES=n (default 150).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcryptjs from 'bcryptjs';
import { median } from '../packages/server/src/cli/bench/statistics.js';
import { withLiftedLoginLimits } from './load/lifted-limits.js';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { InvalidCredentialsError } from '../packages/server/src/accounts/errors.js';
import { login } from '../packages/server/src/features/login/login.js';
import { createLoginFailureTiming, loginVerifyShape } from '../packages/server/src/features/login/login-failure-timing.js';
import { buildAuthDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import type { PasswordHasher } from '../packages/passlane/src/create-password-hasher.js';
import { nodePlatform } from '../packages/server/src/runtimes/node/node-platform.js';
import { startDynalite } from '../test/support/dynamodb-servers.js';

const ROUNDS = Math.max(1, Number(process.env.ROUNDS) || 15);
const SUCCESSES = Math.max(0, Number(process.env.SUCCESSES ?? 150) || 0);
const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';

process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const dynamo = await startDynalite();
// The run's generated signing and fingerprint keys, removed afterwards.
const dataDir = await mkdtemp(join(tmpdir(), 'passlane-bench-timing-'));
try {
  // Enough failures and good logins for the whole run: the limits are measured elsewhere.
  const config = readConfig(withLiftedLoginLimits({ DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: 'timing', PASSLANE_DATA_DIR: dataDir }));
  await ensureTable(nodePlatform.dynamoDb(config.storage), config.storage.table, { maxWaitSeconds: 10 });
  const deps = await buildAuthDependencies(config, { ...nodePlatform, audit: () => {} });

  const bcrypt = bcryptjs.hashSync(PASSWORD, 12);
  const kinds: Record<string, string | undefined> = {
    'unknown email': undefined,
    'argon2id (current)': await deps.hasher.hash(PASSWORD),
    'bcrypt 12 (imported)': bcrypt,
    'bcrypt 12 wrapped (passlane rehash)': await deps.hasher.wrap(bcrypt),
  };
  const emails = new Map<string, string>();
  const account = async (passwordHash: string) => {
    const email = `timing-${crypto.randomUUID()}@example.com`;
    await deps.users.createUser({ email, userId: crypto.randomUUID(), passwordHash, createdAt: new Date() });
    return email;
  };
  for (const [kind, passwordHash] of Object.entries(kinds)) emails.set(kind, passwordHash === undefined ? `timing-${crypto.randomUUID()}@example.com` : await account(passwordHash));
  const attackers = await account(await deps.hasher.hash(PASSWORD));

  const failedLogin = async (kind: string, email: string) => {
    const started = performance.now();
    const answer = await login(deps, { email, password: WRONG, sourceIp: '198.51.100.1' }).catch((error: unknown) => error);
    const ms = performance.now() - started;
    if (!(answer instanceof InvalidCredentialsError)) throw new Error(`${kind}: expected a failed login`);
    return ms;
  };
  const quiet = new Map<string, number[]>([...emails.keys()].map((kind) => [kind, []]));
  const attacked = new Map<string, number[]>([...emails.keys()].map((kind) => [kind, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [kind, email] of emails) {
      const ms = await failedLogin(kind, email);
      if (round > 0) quiet.get(kind)!.push(ms); // round 0 warms up (and shows every format once)
    }
    for (let i = 0; i < SUCCESSES; i++) await login(deps, { email: attackers, password: PASSWORD, sourceIp: '203.0.113.66' });
    // The unknown email first: right after the successes, before any legacy record is verified again.
    for (const [kind, email] of emails) {
      const ms = await failedLogin(kind, email);
      if (round > 0) attacked.get(kind)!.push(ms);
    }
  }

  const reference = { quiet: median(quiet.get('unknown email')!), attacked: median(attacked.get('unknown email')!) };
  console.log(`failed login, wall time, ${ROUNDS} interleaved rounds, node ${process.version}, backend ${await deps.hasher.backendName()}\n`);
  console.log(`| account | median ms | ratio to unknown email | after ${SUCCESSES} successful logins: median ms | ratio | within 15% (both) |`);
  console.log('| --- | ---: | ---: | ---: | ---: | --- |');
  let held = true;
  for (const kind of emails.keys()) {
    const ms = { quiet: median(quiet.get(kind)!), attacked: median(attacked.get(kind)!) };
    const ratio = { quiet: ms.quiet / reference.quiet, attacked: ms.attacked / reference.attacked };
    const within = Math.abs(ratio.quiet - 1) <= 0.15 && Math.abs(ratio.attacked - 1) <= 0.15;
    held &&= within;
    console.log(
      `| ${kind} | ${ms.quiet.toFixed(1)} | ${ratio.quiet.toFixed(2)}x | ${ms.attacked.toFixed(1)} | ${ratio.attacked.toFixed(2)}x | ${within ? 'yes' : 'NO'} |`,
    );
  }
  console.log(`\ncheck: every ratio within 1 ± 0.15, before and after the successful logins: ${held ? 'held' : 'FAILED'}`);
  await timingOverhead(deps.hasher, kinds['argon2id (current)']!);
} finally {
  await dynamo.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/**
 * What the failure timing adds to every login's CPU: the stored record's shape key (a parse) and
 * the bookkeeping (a ring write and a sort of 16), on a timing of its own so the table's is not
 * touched, against a verify of the same record.
 */
async function timingOverhead(hasher: PasswordHasher, stored: string): Promise<void> {
  const timing = createLoginFailureTiming();
  const perCallUs = (run: () => unknown, calls = 20_000) => {
    for (let i = 0; i < 1000; i++) run();
    const started = performance.now();
    for (let i = 0; i < calls; i++) run();
    return ((performance.now() - started) / calls) * 1000;
  };
  const shapeUs = perCallUs(() => loginVerifyShape(hasher, stored, {}));
  const bookkeepingUs = perCallUs(() => timing.start().done('current'));
  const verifies: number[] = [];
  for (let i = 0; i < 9; i++) {
    const started = performance.now();
    await hasher.verify(stored, WRONG);
    verifies.push(performance.now() - started);
  }
  const verifyMs = median(verifies);
  const share = ((shapeUs + bookkeepingUs) / 1000 / verifyMs) * 100;
  console.log(
    `failure timing's work per login: ${(shapeUs + bookkeepingUs).toFixed(1)} µs (shape key ${shapeUs.toFixed(1)}, bookkeeping ` +
      `${bookkeepingUs.toFixed(1)}) against a ${verifyMs.toFixed(1)} ms verify: ${share.toFixed(3)}% (target: under 3%)`,
  );
}
