/**
 * `npm run bench:timing`: how long a failed login takes for each kind of account, so nobody can
 * tell by time which emails exist or which accounts were imported (src/use-cases/LIMITS.md).
 * Through the real login use-case, wired as every host wires it (src/wiring), against dynalite,
 * at OWASP parameters, with a bcrypt-12 record and the same record wrapped by `passlane rehash`.
 * The kinds are interleaved round by round so machine noise hits them alike; medians print
 * side by side with their ratio to an unknown email. Target: every ratio within 1 ± 0.15.
 *   ROUNDS=n (default 15) rounds after one warm-up round.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcryptjs from 'bcryptjs';
import { median } from '../src/bench/statistics.js';
import { readConfig } from '../src/config/read-config.js';
import { ensureTable } from '../src/storage/table.js';
import { InvalidCredentialsError } from '../src/use-cases/errors.js';
import { login } from '../src/use-cases/login.js';
import { buildAuthDependencies } from '../src/wiring/build-dependencies.js';
import { nodePlatform } from '../src/wiring/node-platform.js';
import { startDynalite } from '../test/support/dynamodb-servers.js';

const ROUNDS = Math.max(1, Number(process.env.ROUNDS) || 15);
const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';

process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const dynamo = await startDynalite();
// The run's generated signing and fingerprint keys, removed afterwards.
const dataDir = await mkdtemp(join(tmpdir(), 'passlane-bench-timing-'));
try {
  const config = readConfig({
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    PASSLANE_TABLE: 'timing',
    PASSLANE_DATA_DIR: dataDir,
    // Enough failures for the whole run: the limits are measured elsewhere.
    PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: '100',
    PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING: '100',
    PASSLANE_LOGIN_LIMIT_PER_IP: '1000000',
  });
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
  for (const [kind, passwordHash] of Object.entries(kinds)) {
    const email = `timing-${crypto.randomUUID()}@example.com`;
    if (passwordHash !== undefined) await deps.users.createUser({ email, userId: crypto.randomUUID(), passwordHash, createdAt: new Date() });
    emails.set(kind, email);
  }

  const times = new Map<string, number[]>([...emails.keys()].map((kind) => [kind, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [kind, email] of emails) {
      const started = performance.now();
      const answer = await login(deps, { body: { email, password: WRONG }, sourceIp: '198.51.100.1' }).catch((error: unknown) => error);
      const ms = performance.now() - started;
      if (!(answer instanceof InvalidCredentialsError)) throw new Error(`${kind}: expected a failed login`);
      if (round > 0) times.get(kind)!.push(ms); // round 0 warms up (and shows every format once)
    }
  }

  const reference = median(times.get('unknown email')!);
  console.log(`failed login, wall time, ${ROUNDS} interleaved rounds, node ${process.version}, backend ${await deps.hasher.backendName()}\n`);
  console.log('| account | median ms | ratio to unknown email | within 15% |');
  console.log('| --- | ---: | ---: | --- |');
  for (const [kind, values] of times) {
    const ms = median(values);
    const ratio = ms / reference;
    console.log(`| ${kind} | ${ms.toFixed(1)} | ${ratio.toFixed(2)}x | ${Math.abs(ratio - 1) <= 0.15 ? 'yes' : 'NO'} |`);
  }
} finally {
  await dynamo.stop();
  await rm(dataDir, { recursive: true, force: true });
}
