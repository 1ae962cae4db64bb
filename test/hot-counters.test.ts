/**
 * A credential-stuffing flood from one source writes one counter item with every attempt, and
 * DynamoDB throttles a single key at about 1,000 writes a second (packages/server/src/features/login/LIMITS.md,
 * "Capacity"). Every attempt is reserved on its counters before the verify, so an attempt whose
 * reservation DynamoDB throttles is refused (503) before any verify. Through a proxy that
 * throttles writes to the hot key only, in front of a real DynamoDB server: other users' logins
 * keep working, what was counted stays counted, and the source gets no verify it was not
 * counted for.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceKeyOf } from '../packages/server/src/accounts/source-key.js';
import { InvalidCredentialsError, TemporarilyUnavailableError } from '../packages/server/src/accounts/errors.js';
import { register } from '../packages/server/src/features/register/register.js';
import { countingHasher, createAuthFixture, limits, uniqueEmail } from './support/auth-fixture.js';
import { failureOf, movableClock } from './support/clock.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { startThrottlingProxy, type ThrottlingProxy } from './support/throttling-proxy.js';
import { loginSession } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';
const FLOOD = '203.0.113.66';
const OTHER = '198.51.100.20';

// One server: the throttling is the proxy's, and each throttled write waits out the SDK's retries.
describe('hot counter items', () => {
  let dynamo: RunningDynamoDb;
  let proxy: ThrottlingProxy;
  beforeAll(async () => {
    dynamo = await startDynalite();
    proxy = await startThrottlingProxy(dynamo.endpoint);
  });
  afterAll(async () => {
    await proxy?.stop();
    await dynamo?.stop();
  });

  it("keeps other users' logins working, loses no failure and gives the hot source no uncounted verify", async () => {
    const clock = movableClock();
    const counting = countingHasher();
    const { deps, client, tableName, dispose } = await createAuthFixture(proxy.endpoint, { now: clock.now, hasher: counting.hasher, rateLimits: limits({ perSource: 100, windowSeconds: 300 }) });
    const victim = uniqueEmail();
    const user = uniqueEmail();
    for (const email of [victim, user]) await register(deps, { email, password: PASSWORD });
    const sourceCount = async () => {
      const nowSeconds = Math.floor(clock.now().getTime() / 1000);
      const key = `failures#src#${sourceKeyOf(FLOOD)}#${nowSeconds - (nowSeconds % 300)}`;
      const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: key } }, ConsistentRead: true }));
      return Number(Item?.count?.N ?? 0);
    };
    const attempt = (email: string, password: string, sourceIp: string) => failureOf(loginSession(deps, { email, password, sourceIp }));
    const runOf = async (email: string) => {
      const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: `failures#acct#${deps.fingerprint(email)}` } }, ConsistentRead: true }));
      return Number(Item?.failures?.N ?? 0);
    };

    // Two failures counted as usual; then the flood's source item is hot.
    for (let i = 0; i < 2; i++) expect(await attempt(victim, WRONG, FLOOD)).toBeInstanceOf(InvalidCredentialsError);
    proxy.throttle((pk) => pk.startsWith(`failures#src#${FLOOD}#`));
    const verifiesSoFar = counting.calls.verify + counting.calls.verifyDummy;
    // While it stays hot, the source's attempts (any email, any password, the right one too) are
    // refused before any verify: no reservation, no guess.
    for (const email of [victim, user, uniqueEmail()]) {
      const refused = await attempt(email, email === user ? PASSWORD : WRONG, FLOOD);
      expect(refused).toBeInstanceOf(TemporarilyUnavailableError);
    }
    expect(proxy.refused.length).toBeGreaterThan(0);
    expect(counting.calls.verify + counting.calls.verifyDummy).toBe(verifiesSoFar);

    // Everyone else is untouched: their items are not hot.
    expect(await attempt(user, PASSWORD, OTHER)).toBeUndefined();
    expect(await attempt(victim, WRONG, OTHER)).toBeInstanceOf(InvalidCredentialsError);
    expect(await attempt(victim, PASSWORD, OTHER)).toBeUndefined();

    // Cooled down: the two counted failures are there, the refused attempts added none, and the
    // next failure counts as usual. The right password refused meanwhile left its account no failure.
    proxy.throttle(undefined);
    expect(await sourceCount()).toBe(2);
    expect(await attempt(uniqueEmail(), WRONG, FLOOD)).toBeInstanceOf(InvalidCredentialsError);
    expect(await sourceCount()).toBe(3);
    expect(await runOf(user)).toBe(0);
    dispose();
  });

  it('refuses attempts on a hot account item the same way, before any verify, and a known device of it is not held back', async () => {
    const clock = movableClock();
    const counting = countingHasher();
    const { deps, dispose } = await createAuthFixture(proxy.endpoint, { now: clock.now, hasher: counting.hasher });
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    const { deviceToken } = await loginSession(deps, { email, password: PASSWORD, sourceIp: OTHER });
    expect(await failureOf(loginSession(deps, { email, password: WRONG, sourceIp: '192.0.2.1' }))).toBeInstanceOf(InvalidCredentialsError);
    proxy.throttle((pk) => pk === `failures#acct#${deps.fingerprint(email)}`);
    const verifiesSoFar = counting.calls.verify + counting.calls.verifyDummy;
    expect(await failureOf(loginSession(deps, { email, password: WRONG, sourceIp: '192.0.2.2' }))).toBeInstanceOf(TemporarilyUnavailableError);
    expect(await failureOf(loginSession(deps, { email, password: PASSWORD, sourceIp: '192.0.2.3' }))).toBeInstanceOf(TemporarilyUnavailableError);
    expect(counting.calls.verify + counting.calls.verifyDummy).toBe(verifiesSoFar);
    // The owner's known device counts in the sessions item, not on the hot key.
    await loginSession(deps, { email, password: PASSWORD, sourceIp: OTHER, deviceTokens: [deviceToken] });
    proxy.throttle(undefined);
    dispose();
  });
});
