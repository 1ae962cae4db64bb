/**
 * Device approval (issue 33, item 5: "the owner's new device past the ceiling"): a client without
 * a device token, held to an account-wide ceiling a stranger ran up, asks for a link to the
 * account's mailbox; the link and the asking client's secret together make that client a known
 * device, whose next login the ceiling does not hold. Through the use-cases against both real
 * DynamoDB servers, with a clock the test moves.
 */
import { GetItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOneTimeTokenError, RateLimitedError } from '../packages/server/src/accounts/errors.js';
import { createFailureTiming } from '../packages/server/src/accounts/failure-timing.js';
import { approveDevice } from '../packages/server/src/features/device-approval/approve-device.js';
import { requestDeviceApproval } from '../packages/server/src/features/device-approval/request-device-approval.js';
import { register } from '../packages/server/src/features/register/register.js';
import { listSessions } from '../packages/server/src/features/sessions/list-sessions.js';
import { DEFAULT_SESSION_CONFIG } from '../packages/server/src/features/sessions/settings.js';
import { sessionsKey } from '../packages/server/src/storage/session-store.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { changePasswordWithToken, createAuthFixture, limits, uniqueEmail } from './support/auth-fixture.js';
import { failureOf, movableClock } from './support/clock.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { loginSession } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';
const OWNER = '198.51.100.20';
const CEILING = 3;

describe.each(dynamoDbServers)('device approval on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** An account whose email a stranger has sprayed past its (small) account-wide ceiling from as many addresses. */
  async function sprayedAccount(overrides: Partial<AppDependencies> = {}) {
    const clock = movableClock();
    const fixture = await createAuthFixture(server.endpoint, { now: clock.now, rateLimits: limits({}, { accountFailureCeiling: CEILING }), ...overrides });
    const { deps } = fixture;
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    const attempt = (password: string, deviceTokens?: string[]) => loginSession(deps, { email, password, sourceIp: OWNER, ...(deviceTokens && { deviceTokens }) });
    for (let i = 0; i < CEILING; i++) await failureOf(loginSession(deps, { email, password: WRONG, sourceIp: `192.0.2.${i + 1}` }));
    const ask = (who = email) => requestDeviceApproval(deps, { email: who, sourceIp: OWNER });
    /** The token of the newest approval link mailed. */
    const link = () => fixture.mailbox.last('device_approval')!.token;
    const approve = (token: string, clientSecrets: string[]) => approveDevice(deps, { token, clientSecrets, sourceIp: OWNER, userAgent: 'Mozilla/5.0 Firefox/130.0' });
    return { ...fixture, clock, email, attempt, ask, link, approve };
  }

  it('makes the client that asked a known device: its next login passes the ceiling a stranger ran up', async () => {
    const { deps, attempt, ask, link, approve, events, email, dispose } = await sprayedAccount();
    expect(await failureOf(attempt(PASSWORD))).toBeInstanceOf(RateLimitedError);

    const { clientSecret, expiresIn } = await ask();
    expect(expiresIn).toBe(900);
    const token = link();
    // Another client (another secret of the same account, or none) cannot use the link.
    const stranger = (await ask()).clientSecret;
    expect(await failureOf(approve(token, [stranger]))).toBeInstanceOf(InvalidOneTimeTokenError);
    expect(events.at(-1)).toEqual({ type: 'auth.one_time_token_rejected', purpose: 'device_approval', reason: 'wrong_client' });
    expect(await failureOf(approve(token, []))).toBeInstanceOf(InvalidOneTimeTokenError);
    // The asking client's secret without the link is nothing either.
    expect(await failureOf(approve(clientSecret, [clientSecret]))).toBeInstanceOf(InvalidOneTimeTokenError);

    const { deviceToken, deviceExpiresIn } = await approve(token, ['garbage', clientSecret]);
    expect(deviceExpiresIn).toBe(180 * 86_400);
    expect(events.at(-1)).toMatchObject({ type: 'auth.device_approved' });
    // Single use.
    expect(await failureOf(approve(token, [clientSecret]))).toBeInstanceOf(InvalidOneTimeTokenError);
    expect(events.at(-1)).toMatchObject({ reason: 'unknown' });

    // Still nobody is signed in: a wrong password from the new device is a failure of that device alone ...
    expect(await failureOf(attempt(WRONG, [deviceToken]))).toMatchObject({ code: 'invalid_credentials' });
    // (whoever has no device is still held) ...
    expect(await failureOf(attempt(PASSWORD))).toBeInstanceOf(RateLimitedError);
    // ... and the right one signs in, the ceiling notwithstanding; the device is the one approved.
    const inside = await attempt(PASSWORD, [deviceToken]);
    expect(inside.deviceToken).toBe(deviceToken);
    const { devices } = await listSessions(deps, { accessToken: inside.accessToken });
    expect(devices).toEqual([expect.objectContaining({ current: true, network: '198.51.100.0/24' })]);
    // Nothing audited holds the address, a link or a secret.
    const audited = JSON.stringify(events);
    for (const secret of [email, token, clientSecret, deviceToken, token.split('.')[1]!, clientSecret.split('.')[1]!]) expect(audited).not.toContain(secret);
    dispose();
  });

  it('answers an unknown email as a known one: a client secret, the same reads and writes, no mail', async () => {
    const { client, tableName, mailbox, ask, events, dispose } = await sprayedAccount();
    const log: string[] = [];
    client.middlewareStack.add((next, context) => (args) => (log.push(String(context.commandName)), next(args)), { step: 'initialize' });
    const known = await ask();
    const knownLog = log.splice(0);
    const unknownEmail = uniqueEmail();
    const unknown = await ask(unknownEmail);
    expect(log.sort()).toEqual(knownLog.sort());
    expect(knownLog).toContain('PutItemCommand');
    expect(Object.keys(unknown)).toEqual(Object.keys(known));
    expect(unknown.clientSecret).toMatch(/^[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);
    expect(unknown.expiresIn).toBe(known.expiresIn);
    expect(mailbox.sent.filter((mail) => mail.kind === 'device_approval')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'auth.device_approval_requested').map((event) => 'outcome' in event && event.outcome)).toEqual(['sent', 'unknown_account']);
    // The stand-in written for the unknown email holds hashes and numbers only, and no account.
    const items = (await client.send(new ScanCommand({ TableName: tableName }))).Items ?? [];
    const pending = items.filter((item) => item.pk?.S?.startsWith('token#device#'));
    expect(pending).toHaveLength(2);
    expect(pending.filter((item) => item.accountUserId === undefined)).toHaveLength(1);
    const stored = JSON.stringify(pending);
    expect(stored).not.toContain(unknownEmail);
    for (const secret of [known.clientSecret, unknown.clientSecret]) expect(stored).not.toContain(secret.split('.')[1]!);
    expect(stored).not.toContain(mailbox.last('device_approval')!.token.split('.')[1]!);
    dispose();
  });

  it('pads every answer to the slowest seen, so the mail round trip does not show', async () => {
    let clockMs = 0;
    const paddings: number[] = [];
    const replyTiming = createFailureTiming({ now: () => clockMs, sleep: async (ms) => void paddings.push(ms) });
    const { deps, mailbox, ask, dispose } = await sprayedAccount({ replyTiming });
    deps.mail = { ...mailbox.mail, deviceApproval: async () => void (clockMs += 80) };
    await ask();
    await ask(uniqueEmail());
    expect(paddings).toEqual([80]);
    dispose();
  });

  it('mails at most 3 links per mailbox an hour, silently, and counts requests per source', async () => {
    const { deps, mailbox, ask, clock, events, dispose } = await sprayedAccount();
    for (let i = 0; i < 5; i++) expect((await ask()).clientSecret).toMatch(/^[0-9a-f]{16}\./);
    expect(mailbox.sent.filter((mail) => mail.kind === 'device_approval')).toHaveLength(3);
    expect(events.filter((event) => event.type === 'auth.device_approval_requested').at(-1)).toMatchObject({ outcome: 'rate_limited' });
    clock.advance(3600);
    await ask();
    expect(mailbox.sent.filter((mail) => mail.kind === 'device_approval')).toHaveLength(4);
    // The per-source limit (PASSLANE_LOGIN_LIMIT_PER_IP's) holds across mailboxes.
    deps.rateLimits = limits({ perSource: 2 });
    const other = uniqueEmail();
    await register(deps, { email: other, password: PASSWORD });
    const before = mailbox.sent.length;
    for (let i = 0; i < 3; i++) await requestDeviceApproval(deps, { email: other, sourceIp: '203.0.113.99' });
    expect(mailbox.sent.length - before).toBe(2);
    dispose();
  });

  it('is voided by a password change since it was asked for, and expires after 15 minutes', async () => {
    const { deps, attempt, ask, link, approve, clock, dispose } = await sprayedAccount();
    const pending = await ask();
    const stale = link();
    // The owner gets in with another approval, and changes the password.
    const mine = await ask();
    const { deviceToken } = await approve(link(), [mine.clientSecret]);
    const session = await attempt(PASSWORD, [deviceToken]);
    await changePasswordWithToken(deps, { accessToken: session.accessToken, currentPassword: PASSWORD, newPassword: 'a brand new passphrase', sourceIp: OWNER });
    // The approval asked for under the old password is void: the change forgot every other device.
    expect(await failureOf(approve(stale, [pending.clientSecret]))).toBeInstanceOf(InvalidOneTimeTokenError);
    // One asked for since works ... until it expires.
    const fresh = await ask();
    expect((await approve(link(), [fresh.clientSecret])).deviceToken).toMatch(/^[0-9a-f]{16}\./);
    clock.advance(3600);
    const late = await ask();
    const lateLink = link();
    clock.advance(900);
    expect(await failureOf(approve(lateLink, [late.clientSecret]))).toBeInstanceOf(InvalidOneTimeTokenError);
    dispose();
  });

  it('is voided after 5 tries by other clients', async () => {
    const { ask, link, approve, dispose } = await sprayedAccount();
    const { clientSecret } = await ask();
    const token = link();
    const other = (await ask()).clientSecret;
    for (let i = 0; i < 5; i++) expect(await failureOf(approve(token, [other]))).toBeInstanceOf(InvalidOneTimeTokenError);
    expect(await failureOf(approve(token, [clientSecret]))).toBeInstanceOf(InvalidOneTimeTokenError);
    dispose();
  });

  it('leaves a stranger\'s request beside the owner\'s: each link works only for its own client', async () => {
    const { ask, link, approve, dispose } = await sprayedAccount();
    const owner = await ask();
    const ownerLink = link();
    const stranger = await ask();
    const strangerLink = link();
    // The owner opens the stranger's link (their browser holds only its own secret): refused ...
    expect(await failureOf(approve(strangerLink, [owner.clientSecret]))).toBeInstanceOf(InvalidOneTimeTokenError);
    // ... and the owner's own link still works.
    await approve(ownerLink, [owner.clientSecret]);
    // The stranger's client holds its own link's secret only; without the mail it has nothing.
    expect(await failureOf(approve(ownerLink, [stranger.clientSecret]))).toBeInstanceOf(InvalidOneTimeTokenError);
    dispose();
  });

  it('keeps the devices-per-account bound: the least recently used device is forgotten', async () => {
    const { client, tableName, attempt, ask, link, approve, clock, dispose } = await sprayedAccount({ sessionConfig: { ...DEFAULT_SESSION_CONFIG, devicesPerAccount: 2 } });
    clock.advance(3600);
    const oldest = (await attempt(PASSWORD)).deviceToken;
    clock.advance(10);
    const newer = (await attempt(PASSWORD)).deviceToken;
    const { clientSecret } = await ask();
    const approved = (await approve(link(), [clientSecret])).deviceToken;
    const item = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: sessionsKey(approved.split('.')[0]!) } }, ConsistentRead: true }));
    const ids = Object.keys(item.Item?.devices?.M ?? {}).sort();
    expect(ids).toEqual([newer.split('.')[1]!, approved.split('.')[1]!].sort());
    expect(ids).not.toContain(oldest.split('.')[1]!);
    dispose();
  });

  it('approves a device of an account that never signed in (no sessions item yet)', async () => {
    const { attempt, ask, link, approve, dispose } = await sprayedAccount();
    const { clientSecret } = await ask();
    const { deviceToken } = await approve(link(), [clientSecret]);
    expect((await attempt(PASSWORD, [deviceToken])).deviceToken).toBe(deviceToken);
    dispose();
  });
});
