import { GetItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient, type UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { reserveWithWait, giveBackWithWait, type WaitCounterPath, type WaitReservation, type WaitReserved } from './attempt-counters.js';
import { batchGetByKey } from './batch-get.js';
import { isConditionalCheckFailed } from './checks.js';
import type { AccountEvent } from '../events/account-event.js';
import { StorageRecordInvalidError, StorageUnavailableError } from './errors.js';
import { EventOutbox } from './event-outbox.js';
import { textAttribute, wholeNumberAttribute } from './item-attributes.js';
import { FAILURE_KEY_PREFIX, SESSIONS_KEY_PREFIX, TTL_ATTRIBUTE } from './table.js';

/**
 * One session as stored: which account it belongs to, the hash of its live refresh secret and
 * what recognises the spent ones, its lifetimes, and what GET /sessions shows. Times are epoch
 * seconds. Never a secret: see packages/server/src/features/sessions/refresh-token.ts.
 */
export interface StoredSession {
  sessionId: string;
  userId: string;
  /** Rotations so far; every rotation is conditional on it. */
  generation: number;
  /** SHA-256 of the live refresh secret. */
  tokenHash: string;
  /** SHA-256 of the secret the last rotation spent, and when: within the grace window it may come back. */
  previousHash?: string;
  rotatedAt?: number;
  /** The live secret sealed under the previous one (refresh-token.ts), for that grace. */
  sealedNext?: string;
  /** Marks of older spent secrets, newest first: one coming back is reuse. */
  spent: string[];
  createdAt: number;
  lastUsedAt: number;
  /** The session ends at the earlier of these: idle since the last refresh, and absolute. */
  idleExpiresAt: number;
  expiresAt: number;
  /** Approximate network and client family (packages/server/src/features/sessions/session-origin.ts). */
  network?: string;
  client: string;
  /** The account's email was verified when the session started (or since): access tokens say so. */
  emailVerified?: boolean;
  /** The per-session refresh budget's current hour and its count. */
  refreshWindowStart: number;
  refreshCount: number;
  /** The known device whose login started it (logout of the others keeps that device). */
  deviceId?: string;
  /**
   * How its login authenticated (RFC 8176 `amr`): absent is `pwd` alone (sessions from before
   * second factors). Its login's time is `createdAt`: both reach every access token of the
   * session, refreshes too.
   */
  amr?: string[];
  /**
   * The account's address, kept only while a token hook is set (src/hooks/README.md): a refresh
   * asks the hook again and reads no account. An address change ends every session, so it never
   * goes stale.
   */
  email?: string;
}

/**
 * A known device of the account (packages/server/src/features/sessions/device-token.ts): a client that logged in before.
 * Its logins are counted here, per device, instead of against the account-wide ceiling and the
 * per-source limits (packages/server/src/features/login/LIMITS.md). Never a secret: the token's SHA-256 only.
 */
export interface StoredDevice {
  deviceId: string;
  userId: string;
  /** SHA-256 of the device token's secret. */
  tokenHash: string;
  createdAt: number;
  /** The last good login that presented it (or created it). */
  lastUsedAt: number;
  /** It is forgotten at this time unless a good login presents it before (sliding). */
  expiresAt: number;
  network?: string;
  client: string;
  /** Failed logins presenting it since its last good one, and until when the next must wait. */
  failures: number;
  blockedUntil: number;
}

/** Good logins of the account in the current window, for the per-account bound on successes. */
export interface LoginCount {
  windowStart: number;
  count: number;
}

/**
 * An account's sessions item as read. `exists`: whether there is an item at all; `epoch` moves
 * on only when a password change purges the sessions, so logins that read before cannot add one.
 */
export interface AccountSessions {
  accountKey: string;
  exists: boolean;
  epoch: number;
  /** The item's own expiry (the latest end of a session or a device), for TTL. */
  itemExpiresAt: number;
  sessions: Map<string, StoredSession>;
  /** The account's known devices; `hasDevices`: whether the item has the map at all (items from before devices do not). */
  devices: Map<string, StoredDevice>;
  hasDevices: boolean;
  logins: LoginCount;
  /** An operator disabled the account (features/account): no session or device may be added until it is enabled. */
  disabled: boolean;
}

/** What purge does besides ending sessions: mark the item disabled (or clear the mark), and give it a new TTL. */
export interface PurgeOptions {
  /** Epoch seconds: the account was disabled (no login, no device approval adds anything until cleared); `false` clears the mark. */
  disabledAt?: number | false;
  /** The item's new expiry (a deleted account's emptied item goes soon). */
  expiresAt?: number;
  /** Forget the account's count of good logins too (a deleted account's: the address's next account starts afresh). */
  forgetLogins?: boolean;
}

/** What a good login writes besides its session, in the same request (start-session.ts). */
export interface SessionStart {
  session: StoredSession;
  /** Sessions to end (ended ones, and the oldest beyond the per-account bound). */
  evict: readonly string[];
  /** The device the login presented or was given, as it is now; `known`: it was in the item as read. */
  device?: { value: StoredDevice; known: boolean };
  /** Devices to forget (expired ones, and the least recently used beyond the per-account bound). */
  forgetDevices?: readonly string[];
  /** The account's good logins in this window, this one counted. */
  logins?: LoginCount;
}

/** The sessions item changed in a way the write was conditional on (a purge, a first login, a rotation); read again. */
export class SessionsChangedError extends Error {
  readonly code = 'ERR_STORAGE_SESSIONS_CHANGED';

  constructor() {
    super("the account's sessions changed since they were read");
    this.name = 'SessionsChangedError';
  }
}

export function isLive(session: StoredSession, nowSeconds: number): boolean {
  return nowSeconds < session.idleExpiresAt && nowSeconds < session.expiresAt;
}

export function isKnownDevice(device: StoredDevice, nowSeconds: number): boolean {
  return nowSeconds < device.expiresAt;
}

/**
 * All of an account's sessions in one item, `sessions#<email fingerprint>` (layout in
 * table.ts): a login reads them in the same request as the account (so it knows what to end
 * when the account has too many), and a refresh reads one item and writes it once, conditional
 * on its session's generation only, so refreshes of different sessions never conflict.
 */
export class SessionStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly outbox = new EventOutbox(client, tableName),
  ) {}

  async read(accountKey: string): Promise<AccountSessions> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Item: item } = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: sessionsKey(accountKey) } }, ConsistentRead: true }),
      ));
    } catch (error) {
      throw new StorageUnavailableError('readSessions', error);
    }
    return toAccountSessions(accountKey, item);
  }

  /** A refresh's read: the sessions item (when the token names one) and this source's failed refreshes, in one request. */
  async readForRefresh(accountKey: string | undefined, source: { key: string; windowStart: number }): Promise<{ sessions?: AccountSessions; sourceFailures: number }> {
    const failureKey = refreshFailureKey(source.key, source.windowStart);
    const keys = accountKey === undefined ? [failureKey] : [sessionsKey(accountKey), failureKey];
    const items = await batchGetByKey(this.client, this.tableName, keys, 'readForRefresh');
    const failures = items.get(failureKey);
    return {
      ...(accountKey !== undefined && { sessions: toAccountSessions(accountKey, items.get(sessionsKey(accountKey))) }),
      sourceFailures: failures === undefined ? 0 : number(failures, 'count'),
    };
  }

  /**
   * Adds a session and ends `evict`, with the login's device and its count of good logins, on the
   * condition that no purge happened since `read` (SessionsChangedError otherwise). Logins of one
   * account do not conflict with each other: each sets its own session and device. A device the
   * login presented must still be there (a revocation meanwhile is not undone), and a first
   * device is written as a new map only where there is none. The item's TTL moves to the latest end.
   * `events` (a login's sign-in event, when a deployment records them) go in the same write, by
   * the outbox: one TransactWriteItems, which two logins of one account at once can meet in (the
   * outbox tries again); none, and the write is the one UpdateItem it always was.
   */
  async create(read: AccountSessions, start: SessionStart, events: readonly AccountEvent[] = []): Promise<void> {
    const { session, evict, device, forgetDevices = [], logins } = start;
    const itemExpiresAt = Math.max(read.itemExpiresAt, session.expiresAt, device?.value.expiresAt ?? 0);
    const names: Record<string, string> = { '#sessions': 'sessions', '#epoch': 'epoch', '#expiresAt': TTL_ATTRIBUTE };
    const values: Record<string, AttributeValue> = { ':expiresAt': { N: String(itemExpiresAt) } };
    if (!read.exists) {
      names['#devices'] = 'devices';
      values[':sessions'] = { M: { [session.sessionId]: toAttribute(session) } };
      values[':devices'] = { M: device === undefined ? {} : { [device.value.deviceId]: deviceAttribute(device.value) } };
      values[':zero'] = { N: '0' };
      const counted = logins === undefined ? '' : ', #loginWindow = :loginWindow, #loginCount = :loginCount';
      if (logins !== undefined) setLoginCount(names, values, logins);
      return this.conditional('createSession', {
        Key: { pk: { S: sessionsKey(read.accountKey) } },
        UpdateExpression: `SET #sessions = :sessions, #devices = :devices, #epoch = :zero, #expiresAt = :expiresAt${counted}`,
        ConditionExpression: 'attribute_not_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }, events);
    }
    const set = ['#sessions.#new = :session', '#expiresAt = :expiresAt'];
    const remove: string[] = [];
    const add: string[] = [];
    // A disabled account's item takes no session, whatever the login read (it may have read before the disable).
    names['#disabledAt'] = DISABLED_ATTRIBUTE;
    const conditions = ['#epoch = :epoch', 'attribute_not_exists(#disabledAt)'];
    names['#new'] = session.sessionId;
    values[':session'] = toAttribute(session);
    values[':epoch'] = { N: String(read.epoch) };
    evict.forEach((id, i) => {
      names[`#e${i}`] = id;
      remove.push(`#sessions.#e${i}`);
    });
    if (device !== undefined) {
      names['#devices'] = 'devices';
      if (read.hasDevices) {
        names['#device'] = device.value.deviceId;
        values[':device'] = deviceAttribute(device.value);
        set.push('#devices.#device = :device');
        if (device.known) conditions.push('attribute_exists(#devices.#device)');
        forgetDevices.forEach((id, i) => {
          names[`#f${i}`] = id;
          remove.push(`#devices.#f${i}`);
        });
      } else {
        // An item from before devices: the map itself, where a racing login has not made one.
        values[':devices'] = { M: { [device.value.deviceId]: deviceAttribute(device.value) } };
        set.push('#devices = :devices');
        conditions.push('attribute_not_exists(#devices)');
      }
    }
    if (logins !== undefined) {
      if (logins.windowStart === read.logins.windowStart && logins.count > 1) {
        // The same window: counted atomically, so logins racing each other are all counted.
        names['#loginCount'] = 'loginCount';
        values[':one'] = { N: '1' };
        add.push('#loginCount :one');
      } else {
        setLoginCount(names, values, logins);
        set.push('#loginWindow = :loginWindow', '#loginCount = :loginCount');
      }
    }
    const expression = [`SET ${set.join(', ')}`, add.length > 0 ? `ADD ${add.join(', ')}` : '', remove.length > 0 ? `REMOVE ${remove.join(', ')}` : ''];
    return this.conditional('createSession', {
      Key: { pk: { S: sessionsKey(read.accountKey) } },
      UpdateExpression: expression.filter(Boolean).join(' '),
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }, events);
  }

  /** Replaces a session after a rotation, if no other rotation of it got there first (false then). */
  async rotate(accountKey: string, rotated: StoredSession, expectedGeneration: number): Promise<boolean> {
    try {
      await this.conditional('rotateSession', {
        Key: { pk: { S: sessionsKey(accountKey) } },
        UpdateExpression: 'SET #sessions.#id = :session',
        ConditionExpression: '#sessions.#id.#generation = :generation',
        ExpressionAttributeNames: { '#sessions': 'sessions', '#id': rotated.sessionId, '#generation': 'generation' },
        ExpressionAttributeValues: { ':session': toAttribute(rotated), ':generation': { N: String(expectedGeneration) } },
      });
      return true;
    } catch (error) {
      if (error instanceof SessionsChangedError) return false;
      throw error;
    }
  }

  /**
   * Ends the sessions named and forgets the devices named, in one write, whatever else changed
   * since the read (ending one that is already gone is no error).
   */
  async end(read: AccountSessions, sessionIds: readonly string[], deviceIds: readonly string[] = []): Promise<void> {
    const devices = read.hasDevices ? deviceIds : [];
    if (!read.exists || sessionIds.length + devices.length === 0) return;
    const names: Record<string, string> = {};
    const paths: string[] = [];
    if (sessionIds.length > 0) names['#sessions'] = 'sessions';
    sessionIds.forEach((id, i) => {
      names[`#e${i}`] = id;
      paths.push(`#sessions.#e${i}`);
    });
    if (devices.length > 0) names['#devices'] = 'devices';
    devices.forEach((id, i) => {
      names[`#d${i}`] = id;
      paths.push(`#devices.#d${i}`);
    });
    return this.conditional('endSessions', {
      Key: { pk: { S: sessionsKey(read.accountKey) } },
      UpdateExpression: `REMOVE ${paths.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
    }).catch((error: unknown) => {
      if (!(error instanceof SessionsChangedError)) throw error;
    });
  }

  /**
   * After a password change: the item keeps only the sessions in `keep` and the devices in
   * `keepDevices` (as read) and moves its epoch on, replacing both maps, so a session a login added after this read is gone too,
   * and a login that read before cannot add one after. Conditional on the epoch and on each kept
   * session's generation (a refresh of it meanwhile would otherwise be undone):
   * SessionsChangedError asks the caller to read again. Writes even when there was no item, so
   * a login racing the change finds one.
   */
  async purge(read: AccountSessions, keep: readonly string[], keepDevices: readonly string[] = [], options: PurgeOptions = {}): Promise<void> {
    const kept: Record<string, AttributeValue> = {};
    const keptDevices: Record<string, AttributeValue> = {};
    for (const id of keepDevices) {
      const device = read.devices.get(id);
      if (device !== undefined) keptDevices[id] = deviceAttribute(device);
    }
    const names: Record<string, string> = { '#sessions': 'sessions', '#epoch': 'epoch', '#devices': 'devices' };
    const values: Record<string, AttributeValue> = { ':next': { N: String(read.epoch + 1) }, ':devices': { M: keptDevices } };
    const conditions = [read.exists ? '#epoch = :epoch' : 'attribute_not_exists(pk)'];
    if (read.exists) values[':epoch'] = { N: String(read.epoch) };
    keep.forEach((id, i) => {
      const session = read.sessions.get(id);
      if (session === undefined) return;
      kept[id] = toAttribute(session);
      names[`#k${i}`] = id;
      values[`:g${i}`] = { N: String(session.generation) };
      conditions.push(`#sessions.#k${i}.generation = :g${i}`);
    });
    values[':kept'] = { M: kept };
    const set = ['#sessions = :kept', '#devices = :devices', '#epoch = :next'];
    const remove: string[] = [];
    if (options.disabledAt !== undefined) names['#disabledAt'] = DISABLED_ATTRIBUTE;
    if (typeof options.disabledAt === 'number') {
      set.push('#disabledAt = :disabledAt');
      values[':disabledAt'] = { N: String(options.disabledAt) };
    } else if (options.disabledAt === false) remove.push('#disabledAt');
    if (options.forgetLogins === true) {
      names['#loginWindow'] = 'loginWindow';
      names['#loginCount'] = 'loginCount';
      remove.push('#loginWindow', '#loginCount');
    }
    if (options.expiresAt !== undefined) {
      names['#expiresAt'] = TTL_ATTRIBUTE;
      set.push('#expiresAt = :expiresAt');
      values[':expiresAt'] = { N: String(options.expiresAt) };
    }
    return this.conditional('purgeSessions', {
      Key: { pk: { S: sessionsKey(read.accountKey) } },
      UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }

  /** Marks the sessions named as belonging to a verified email (their next access tokens say so); SessionsChangedError if one is gone. */
  async markEmailVerified(read: AccountSessions, sessionIds: readonly string[]): Promise<void> {
    if (!read.exists || sessionIds.length === 0) return;
    const names: Record<string, string> = { '#sessions': 'sessions', '#verified': 'emailVerified' };
    sessionIds.forEach((id, i) => (names[`#s${i}`] = id));
    return this.conditional('markSessionsVerified', {
      Key: { pk: { S: sessionsKey(read.accountKey) } },
      UpdateExpression: `SET ${sessionIds.map((_, i) => `#sessions.#s${i}.#verified = :true`).join(', ')}`,
      // A session ended meanwhile: its path is gone, and SET on it would fail anyway.
      ConditionExpression: sessionIds.map((_, i) => `attribute_exists(#sessions.#s${i})`).join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':true': { BOOL: true } },
    });
  }

  /** One failed refresh more from this source in this window. */
  async recordRefreshFailure(source: { key: string; windowStart: number; windowEnd: number }): Promise<void> {
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: refreshFailureKey(source.key, source.windowStart) } },
          UpdateExpression: 'ADD #count :one SET #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
          ExpressionAttributeNames: { '#count': 'count', '#expiresAt': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': { N: '1' }, ':expiresAt': { N: String(source.windowEnd) } },
        }),
      );
    } catch (error) {
      throw new StorageUnavailableError('recordRefreshFailure', error);
    }
  }

  /**
   * Reserves a login attempt presenting this device (its failures and wait, in its entry of the
   * sessions item) before the secret is checked, as the login's other counters are
   * (attempt-counters.ts). A good login's session write clears it (start-session.ts). Refused
   * while the device waits, or when it is gone (revoked meanwhile).
   */
  async reserveDeviceAttempt(
    accountKey: string,
    device: Pick<StoredDevice, 'deviceId' | 'failures' | 'blockedUntil'>,
    limits: { nowSeconds: number; free: number; blockedUntilAfter: (failures: number) => number },
  ): Promise<WaitReservation> {
    return reserveWithWait(this.client, this.tableName, devicePath(accountKey, device.deviceId), device, limits);
  }

  /** Gives a device's reserved attempt back (a right secret that started no session). */
  async giveBackDeviceAttempt(accountKey: string, deviceId: string, reserved: WaitReserved): Promise<void> {
    await giveBackWithWait(this.client, this.tableName, devicePath(accountKey, deviceId), reserved, false);
  }

  private async conditional(operation: string, input: Omit<UpdateItemCommandInput, 'TableName'>, events: readonly AccountEvent[] = []): Promise<void> {
    try {
      await this.outbox.write({ Update: { TableName: this.tableName, ...input } }, events);
    } catch (error) {
      if (isConditionalCheckFailed(error)) throw new SessionsChangedError();
      throw new StorageUnavailableError(operation, error);
    }
  }

  /**
   * Adds a known device without a session (a device approved by mail,
   * packages/server/src/features/device-approval) and forgets `forgetDevices`, in one write
   * conditional on the epoch read: a password change since then purged the devices, and this
   * one must not come back after it (SessionsChangedError; so does a first login that created the
   * item meanwhile: read again). Where there is no item, or one from before devices, the map is
   * written only where there is none. The item's TTL moves to the device's end if later.
   */
  async addDevice(read: AccountSessions, device: StoredDevice, forgetDevices: readonly string[] = []): Promise<void> {
    const names: Record<string, string> = { '#devices': 'devices', '#epoch': 'epoch', '#expiresAt': TTL_ATTRIBUTE };
    const values: Record<string, AttributeValue> = { ':expiresAt': { N: String(Math.max(read.itemExpiresAt, device.expiresAt)) } };
    const key = { pk: { S: sessionsKey(read.accountKey) } };
    if (!read.exists) {
      names['#sessions'] = 'sessions';
      values[':sessions'] = { M: {} };
      values[':devices'] = { M: { [device.deviceId]: deviceAttribute(device) } };
      values[':zero'] = { N: '0' };
      return this.conditional('addDevice', {
        Key: key,
        UpdateExpression: 'SET #sessions = :sessions, #devices = :devices, #epoch = :zero, #expiresAt = :expiresAt',
        ConditionExpression: 'attribute_not_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      });
    }
    values[':epoch'] = { N: String(read.epoch) };
    names['#disabledAt'] = DISABLED_ATTRIBUTE;
    const conditions = ['#epoch = :epoch', 'attribute_not_exists(#disabledAt)'];
    const remove: string[] = [];
    let set: string;
    if (read.hasDevices) {
      names['#device'] = device.deviceId;
      values[':device'] = deviceAttribute(device);
      set = '#devices.#device = :device';
      forgetDevices.forEach((id, i) => {
        names[`#f${i}`] = id;
        remove.push(`#devices.#f${i}`);
      });
    } else {
      values[':devices'] = { M: { [device.deviceId]: deviceAttribute(device) } };
      set = '#devices = :devices';
      conditions.push('attribute_not_exists(#devices)');
    }
    return this.conditional('addDevice', {
      Key: key,
      UpdateExpression: [`SET ${set}, #expiresAt = :expiresAt`, remove.length > 0 ? `REMOVE ${remove.join(', ')}` : ''].filter(Boolean).join(' '),
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }
}

/** A device's failures and wait, in its entry of the account's sessions item. */
function devicePath(accountKey: string, deviceId: string): WaitCounterPath {
  return {
    key: sessionsKey(accountKey),
    names: { '#devices': 'devices', '#d': deviceId, '#f': 'failures', '#b': 'blockedUntil' },
    failures: '#devices.#d.#f',
    blockedUntil: '#devices.#d.#b',
    mustExist: 'attribute_exists(#devices.#d)',
    read: (item) => toAccountSessions(accountKey, item).devices.get(deviceId),
  };
}

export function sessionsKey(accountKey: string): string {
  return `${SESSIONS_KEY_PREFIX}${accountKey}`;
}

export function refreshFailureKey(sourceKey: string, windowStart: number): string {
  return `${FAILURE_KEY_PREFIX}refresh#src#${sourceKey}#${windowStart}`;
}

/** The item as read (or none) as an AccountSessions; a session that does not parse is corrupt data, not an outage. */
export function toAccountSessions(accountKey: string, item: Record<string, AttributeValue> | undefined): AccountSessions {
  const sessions = new Map<string, StoredSession>();
  const devices = new Map<string, StoredDevice>();
  if (item === undefined) return { accountKey, exists: false, epoch: 0, itemExpiresAt: 0, sessions, devices, hasDevices: false, logins: { windowStart: 0, count: 0 }, disabled: false };
  for (const [sessionId, value] of Object.entries(item.sessions?.M ?? {})) {
    if (value.M === undefined) throw new StorageRecordInvalidError('sessions');
    sessions.set(sessionId, fromAttribute(sessionId, value.M));
  }
  for (const [deviceId, value] of Object.entries(item.devices?.M ?? {})) {
    if (value.M === undefined) throw new StorageRecordInvalidError('devices');
    devices.set(deviceId, fromDeviceAttribute(deviceId, value.M));
  }
  return {
    accountKey,
    exists: true,
    epoch: number(item, 'epoch'),
    itemExpiresAt: item[TTL_ATTRIBUTE] ? number(item, TTL_ATTRIBUTE) : 0,
    sessions,
    devices,
    hasDevices: item.devices?.M !== undefined,
    logins: item.loginWindow ? { windowStart: number(item, 'loginWindow'), count: number(item, 'loginCount') } : { windowStart: 0, count: 0 },
    disabled: item[DISABLED_ATTRIBUTE] !== undefined,
  };
}

/** The sessions item's mark of a disabled account (epoch seconds), set and cleared by purge. */
const DISABLED_ATTRIBUTE = 'disabledAt';

function toAttribute(s: StoredSession): AttributeValue {
  const n = (value: number): AttributeValue => ({ N: String(value) });
  const m: Record<string, AttributeValue> = {
    userId: { S: s.userId },
    generation: n(s.generation),
    tokenHash: { S: s.tokenHash },
    spent: { L: s.spent.map((mark) => ({ S: mark })) },
    createdAt: n(s.createdAt),
    lastUsedAt: n(s.lastUsedAt),
    idleExpiresAt: n(s.idleExpiresAt),
    expiresAt: n(s.expiresAt),
    client: { S: s.client },
    refreshWindowStart: n(s.refreshWindowStart),
    refreshCount: n(s.refreshCount),
  };
  if (s.previousHash !== undefined) m.previousHash = { S: s.previousHash };
  if (s.rotatedAt !== undefined) m.rotatedAt = n(s.rotatedAt);
  if (s.sealedNext !== undefined) m.sealedNext = { S: s.sealedNext };
  if (s.network !== undefined) m.network = { S: s.network };
  if (s.emailVerified === true) m.emailVerified = { BOOL: true };
  if (s.deviceId !== undefined) m.deviceId = { S: s.deviceId };
  if (s.amr !== undefined) m.amr = { L: s.amr.map((method) => ({ S: method })) };
  if (s.email !== undefined) m.email = { S: s.email };
  return { M: m };
}

function deviceAttribute(d: StoredDevice): AttributeValue {
  const n = (value: number): AttributeValue => ({ N: String(value) });
  const m: Record<string, AttributeValue> = {
    userId: { S: d.userId },
    tokenHash: { S: d.tokenHash },
    createdAt: n(d.createdAt),
    lastUsedAt: n(d.lastUsedAt),
    expiresAt: n(d.expiresAt),
    client: { S: d.client },
    failures: n(d.failures),
    blockedUntil: n(d.blockedUntil),
  };
  if (d.network !== undefined) m.network = { S: d.network };
  return { M: m };
}

function fromDeviceAttribute(deviceId: string, m: Record<string, AttributeValue>): StoredDevice {
  const text = (name: string) => textAttribute(m, name, 'devices');
  return {
    deviceId,
    userId: text('userId'),
    tokenHash: text('tokenHash'),
    createdAt: number(m, 'createdAt'),
    lastUsedAt: number(m, 'lastUsedAt'),
    expiresAt: number(m, 'expiresAt'),
    ...(m.network?.S !== undefined && { network: m.network.S }),
    client: m.client?.S ?? 'unknown',
    failures: m.failures ? number(m, 'failures') : 0,
    blockedUntil: m.blockedUntil ? number(m, 'blockedUntil') : 0,
  };
}

function setLoginCount(names: Record<string, string>, values: Record<string, AttributeValue>, logins: LoginCount): void {
  names['#loginWindow'] = 'loginWindow';
  names['#loginCount'] = 'loginCount';
  values[':loginWindow'] = { N: String(logins.windowStart) };
  values[':loginCount'] = { N: String(logins.count) };
}

function fromAttribute(sessionId: string, m: Record<string, AttributeValue>): StoredSession {
  const text = (name: string) => textAttribute(m, name, 'sessions');
  const optionalText = (name: string) => m[name]?.S;
  return {
    sessionId,
    userId: text('userId'),
    generation: number(m, 'generation'),
    tokenHash: text('tokenHash'),
    ...(optionalText('previousHash') !== undefined && { previousHash: optionalText('previousHash') }),
    ...(m.rotatedAt !== undefined && { rotatedAt: number(m, 'rotatedAt') }),
    ...(optionalText('sealedNext') !== undefined && { sealedNext: optionalText('sealedNext') }),
    spent: (m.spent?.L ?? []).map((mark) => mark.S ?? ''),
    createdAt: number(m, 'createdAt'),
    lastUsedAt: number(m, 'lastUsedAt'),
    idleExpiresAt: number(m, 'idleExpiresAt'),
    expiresAt: number(m, 'expiresAt'),
    ...(optionalText('network') !== undefined && { network: optionalText('network') }),
    client: optionalText('client') ?? 'unknown',
    ...(m.emailVerified?.BOOL === true && { emailVerified: true }),
    refreshWindowStart: m.refreshWindowStart ? number(m, 'refreshWindowStart') : 0,
    refreshCount: m.refreshCount ? number(m, 'refreshCount') : 0,
    ...(optionalText('deviceId') !== undefined && { deviceId: optionalText('deviceId') }),
    ...(m.amr?.L !== undefined && { amr: m.amr.L.map((method) => method.S ?? '') }),
    ...(optionalText('email') !== undefined && { email: optionalText('email') }),
  };
}

function number(item: Record<string, AttributeValue>, name: string): number {
  return wholeNumberAttribute(item, name, 'sessions');
}
