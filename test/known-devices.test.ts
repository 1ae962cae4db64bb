/**
 * Known devices (issue: "lock owners out from 20 addresses"): a client that logged in before
 * presents its device token, and its logins are counted per device, not against the
 * account-wide ceiling or the per-source limits a stranger or a neighbour behind one NAT runs
 * up; good logins are bounded per account and per source. Through the use-cases, against both
 * real DynamoDB servers, with a clock the test moves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDeviceToken } from '../packages/server/src/features/sessions/device-token.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { deleteDevice, logout } from '../packages/server/src/features/sessions/end-sessions.js';
import { DeviceNotFoundError, InvalidCredentialsError, RateLimitedError } from '../packages/server/src/accounts/errors.js';
import { listSessions } from '../packages/server/src/features/sessions/list-sessions.js';
import { register } from '../packages/server/src/features/register/register.js';
import { changePasswordWithToken, createAuthFixture, limits, uniqueEmail } from './support/auth-fixture.js';
import { failureOf, movableClock } from './support/clock.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { loginSession, type LoginSession } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';
const OWNER = '198.51.100.20';
const NAT = '203.0.113.10';

describe.each(dynamoDbServers)('known devices on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function account(overrides: Partial<AppDependencies> = {}) {
    const clock = movableClock();
    const fixture = await createAuthFixture(server.endpoint, { now: clock.now, ...overrides });
    const email = uniqueEmail();
    await register(fixture.deps, { email, password: PASSWORD });
    const attempt = (password: string, sourceIp: string, deviceTokens?: string[], who = email) =>
      loginSession(fixture.deps, { email: who, password, sourceIp, ...(deviceTokens && { deviceTokens }) });
    return { ...fixture, clock, email, attempt };
  }

  it("lets the owner's known device through a lock that strangers ran up from 20 addresses, and nobody else", async () => {
    // The defaults: 5 failures per email and source, NIST's ceiling of 100 per email.
    const { attempt, events, dispose } = await account({ rateLimits: limits({ perSource: 100 }, { failuresPerAccountSource: 5, accountFailureCeiling: 100 }) });
    const { deviceToken } = await attempt(PASSWORD, OWNER);
    for (let address = 1; address <= 20; address++) {
      for (let i = 0; i < 5; i++) expect(await failureOf(attempt(WRONG, `192.0.2.${address}`))).toBeInstanceOf(InvalidCredentialsError);
    }
    // The account-wide ceiling holds for everyone without the device: the owner on a new
    // browser, and the stranger with the right password.
    const locked = await failureOf(attempt(PASSWORD, OWNER));
    expect(locked).toBeInstanceOf(RateLimitedError);
    expect(events.at(-1)).toMatchObject({ type: 'auth.rate_limited', scope: 'account' });
    // A token that is not one of this account's devices is no device.
    const forged = `${deviceToken.slice(0, -4)}AAAA`;
    expect(await failureOf(attempt(PASSWORD, OWNER, [forged]))).toBeInstanceOf(RateLimitedError);
    // The owner's known device is counted on its own: in, from any address (and, as any good
    // login, its success ends the run of consecutive failures).
    const inside = await attempt(PASSWORD, '192.0.2.1', [deviceToken]);
    expect(inside.deviceToken).toBe(deviceToken);
    dispose();
  });

  it("keeps a known device in when another account's failures from the same NAT address hit that address's limit", async () => {
    const { deps, attempt, dispose } = await account({ rateLimits: limits({ perSource: 3 }) });
    const { deviceToken } = await attempt(PASSWORD, NAT);
    // Someone else behind the same address fails on other emails until the address is limited.
    for (let i = 0; i < 3; i++) expect(await failureOf(loginSession(deps, { email: uniqueEmail(), password: WRONG, sourceIp: NAT }))).toBeInstanceOf(InvalidCredentialsError);
    expect(await failureOf(attempt(PASSWORD, NAT))).toBeInstanceOf(RateLimitedError);
    await attempt(PASSWORD, NAT, [deviceToken]);
    dispose();
  });

  it('counts failures with a known device against that device only, with waits of their own', async () => {
    const { attempt, events, clock, dispose } = await account({
      rateLimits: limits({}, { failuresPerAccountSource: 2, delayBaseSeconds: 30, delayMaxSeconds: 100, accountFailureCeiling: 3 }),
    });
    const phone = (await attempt(PASSWORD, OWNER)).deviceToken;
    const laptop = (await attempt(PASSWORD, OWNER)).deviceToken;
    expect(laptop).not.toBe(phone);
    // A thief with the phone's token guesses: the phone waits after two failures, ...
    for (let i = 0; i < 2; i++) expect(await failureOf(attempt(WRONG, NAT, [phone]))).toBeInstanceOf(InvalidCredentialsError);
    const waiting = await failureOf(attempt(PASSWORD, NAT, [phone]));
    expect(waiting).toBeInstanceOf(RateLimitedError);
    expect((waiting as RateLimitedError).retryAfterSeconds).toBe(30);
    expect(events.at(-1)).toMatchObject({ type: 'auth.rate_limited', scope: 'device' });
    // ... and the account-wide run was not touched: the ceiling is 3, and no device-less
    // attempt from the same address is held back either.
    await attempt(PASSWORD, NAT);
    await attempt(PASSWORD, OWNER, [laptop]);
    // The wait passes, a good login clears the phone's failures.
    clock.advance(30);
    await attempt(PASSWORD, NAT, [phone]);
    for (let i = 0; i < 2; i++) expect(await failureOf(attempt(WRONG, NAT, [phone]))).toBeInstanceOf(InvalidCredentialsError);
    expect(await failureOf(attempt(PASSWORD, NAT, [phone]))).toBeInstanceOf(RateLimitedError);
    dispose();
  });

  it("ignores another account's device token and a garbage one", async () => {
    const { deps, attempt, dispose } = await account({ rateLimits: limits({}, { accountFailureCeiling: 2 }) });
    const other = uniqueEmail();
    await register(deps, { email: other, password: PASSWORD });
    const theirs = (await attempt(PASSWORD, NAT, undefined, other)).deviceToken;
    for (let i = 0; i < 2; i++) expect(await failureOf(attempt(WRONG, `192.0.2.${i}`))).toBeInstanceOf(InvalidCredentialsError);
    for (const tokens of [[theirs], ['garbage'], ['a.b.c'], []]) expect(await failureOf(attempt(PASSWORD, OWNER, tokens))).toBeInstanceOf(RateLimitedError);
    dispose();
  });

  it('bounds good logins per account, with or without a known device', async () => {
    const { attempt, events, clock, dispose } = await account({ rateLimits: limits({ windowSeconds: 300 }, { successesPerAccount: 3 }) });
    // Start the test at the beginning of a window.
    clock.advance(300 - (Math.floor(clock.now().getTime() / 1000) % 300));
    const { deviceToken } = await attempt(PASSWORD, OWNER);
    await attempt(PASSWORD, OWNER, [deviceToken]);
    await attempt(PASSWORD, NAT);
    const bounded = await failureOf(attempt(PASSWORD, OWNER, [deviceToken]));
    expect(bounded).toBeInstanceOf(RateLimitedError);
    expect((bounded as RateLimitedError).retryAfterSeconds).toBe(300);
    expect(events.at(-1)).toMatchObject({ type: 'auth.rate_limited', scope: 'account_success' });
    // Refused before any hash: a wrong password is answered the same.
    expect(await failureOf(attempt(WRONG, OWNER, [deviceToken]))).toBeInstanceOf(RateLimitedError);
    clock.advance(300);
    await attempt(PASSWORD, OWNER, [deviceToken]);
    dispose();
  });

  it('bounds good logins per source for clients without a known device', async () => {
    const { deps, attempt, events, clock, dispose } = await account({ rateLimits: limits({ windowSeconds: 300 }, { successesPerSource: 2 }) });
    clock.advance(300 - (Math.floor(clock.now().getTime() / 1000) % 300));
    const { deviceToken } = await attempt(PASSWORD, NAT);
    const second = uniqueEmail();
    await register(deps, { email: second, password: PASSWORD });
    await attempt(PASSWORD, NAT, undefined, second);
    const third = uniqueEmail();
    await register(deps, { email: third, password: PASSWORD });
    expect(await failureOf(attempt(PASSWORD, NAT, undefined, third))).toBeInstanceOf(RateLimitedError);
    expect(events.at(-1)).toMatchObject({ type: 'auth.rate_limited', scope: 'source_success' });
    // A known device is not held to its address's count.
    await attempt(PASSWORD, NAT, [deviceToken]);
    dispose();
  });

  it('lists known devices with the sessions and forgets one on request; a forgotten device is no device', async () => {
    const { deps, attempt, dispose } = await account({ rateLimits: limits({}, { accountFailureCeiling: 2 }) });
    const first: LoginSession = await attempt(PASSWORD, OWNER);
    const second: LoginSession = await attempt(PASSWORD, NAT);
    const listed = await listSessions(deps, { accessToken: first.accessToken });
    expect(listed.devices).toHaveLength(2);
    const mine = listed.devices.find((device) => device.current)!;
    const id = parseDeviceToken(first.deviceToken)!;
    expect(mine.id).toBe(`${id.accountKey}.${id.deviceId}`);
    expect(JSON.stringify(listed)).not.toContain(first.deviceToken.split('.')[2]);
    const theirs = listed.devices.find((device) => !device.current)!;
    await deleteDevice(deps, { accessToken: first.accessToken, id: theirs.id });
    expect(await failureOf(deleteDevice(deps, { accessToken: first.accessToken, id: theirs.id }))).toBeInstanceOf(DeviceNotFoundError);
    expect((await listSessions(deps, { accessToken: first.accessToken })).devices.map((device) => device.id)).toEqual([mine.id]);
    // The forgotten device is held to the account's lock like any other client.
    for (let i = 0; i < 2; i++) expect(await failureOf(attempt(WRONG, `192.0.2.${i}`))).toBeInstanceOf(InvalidCredentialsError);
    expect(await failureOf(attempt(PASSWORD, NAT, [second.deviceToken]))).toBeInstanceOf(RateLimitedError);
    await attempt(PASSWORD, OWNER, [first.deviceToken]);
    dispose();
  });

  it('forgets every other device at a password change and all of them at a global sign-out', async () => {
    const { deps, attempt, dispose } = await account({ rateLimits: limits({}, { accountFailureCeiling: 2 }) });
    const owner = await attempt(PASSWORD, OWNER);
    const thief = await attempt(PASSWORD, NAT);
    const newPassword = 'a brand new passphrase';
    await changePasswordWithToken(deps, { accessToken: owner.accessToken, currentPassword: PASSWORD, newPassword, sourceIp: OWNER });
    expect((await listSessions(deps, { accessToken: owner.accessToken })).devices).toHaveLength(1);
    // The thief's device token no longer spares them the account's lock.
    for (let i = 0; i < 2; i++) expect(await failureOf(attempt(WRONG, `192.0.2.${i}`))).toBeInstanceOf(InvalidCredentialsError);
    expect(await failureOf(attempt(newPassword, NAT, [thief.deviceToken]))).toBeInstanceOf(RateLimitedError);
    const again = await attempt(newPassword, OWNER, [owner.deviceToken]);
    expect(again.deviceToken).toBe(owner.deviceToken);

    await logout(deps, { accessToken: again.accessToken, scope: 'global' });
    for (let i = 0; i < 2; i++) expect(await failureOf(attempt(WRONG, `192.0.2.${i}`))).toBeInstanceOf(InvalidCredentialsError);
    expect(await failureOf(attempt(newPassword, OWNER, [owner.deviceToken]))).toBeInstanceOf(RateLimitedError);
    dispose();
  });
});
