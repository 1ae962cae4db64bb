import {
  DeleteItemCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { toStoredMfa, type StoredMfa } from './mfa-store.js';
import { toUserRecord, userKey, type UserRecord } from './account-store.js';
import { batchGetByKey } from './batch-get.js';
import { countAttribute } from './item-attributes.js';
import { sessionsKey, toAccountSessions, type AccountSessions } from './session-store.js';
import { conditionalUpdate } from './conditional-update.js';
import { deleteAtCount, giveBackUnderCap, giveBackWithWait, isRefused, reserveUnderCap, reserveWithWait, type Reservation, type WaitCount, type WaitCounterPath, type WaitReservation, type WaitReserved } from './attempt-counters.js';
import { StorageUnavailableError } from './errors.js';
import { FAILURE_KEY_PREFIX, MIGRATION_KEY_PREFIX, TTL_ATTRIBUTE, mfaKey } from './table.js';
import { epochSeconds } from '../shared/epoch-seconds.js';

/** Who is logging in, as the keys of what a login reads and writes. */
export interface LoginTarget {
  /** Normalised; the account item's key. */
  email: string;
  /** The email's fingerprint: failures are kept for unknown emails too, so they look alike. */
  accountKey: string;
  /** The grouped source (IPv4 address, IPv6 /64); undefined when the host knows none. */
  sourceKey?: string;
  now: Date;
}

/** Everything a login decides on, read in one request. Expired items read as zero. */
export interface LoginState {
  user?: UserRecord;
  /** Consecutive failures on this email from any source, and when that run is forgotten (epoch s). */
  account: { failures: number; expiresAt: number };
  /** Failures on this email from this source, and until when the next attempt must wait (epoch s). */
  accountSource: { failures: number; blockedUntil: number };
  /** Failed and good logins from this source, on any email, in the current window. */
  source: { failures: number; successes: number; windowEnd: number };
  /** The account's sessions, so a good login can start one without another read. */
  sessions: AccountSessions;
  /**
   * The account's second factors (features/mfa), read with the rest for every login, right or
   * wrong, so a login's reads do not depend on the password and a good one needs no second read.
   */
  factors?: StoredMfa;
  /**
   * With lazy migration: whether the old system is known to be down (its breaker is open), and
   * from when it may be asked again. Absent: closed, or not asked for.
   */
  breaker?: { retryAt: number };
}

/** What a login's reservation holds to (the use case decides the numbers: packages/server/src/features/login/login-guard.ts). */
export interface ReservationLimits {
  /** Consecutive failures of the email from anywhere, and when the run is forgotten if this attempt fails. */
  accountCeiling: number;
  accountExpiresAt: number;
  /** The failures of the email from this source that earn no wait, the wait after more (0: none), and when they are forgotten. */
  freeFailures: number;
  blockedUntilAfter: (failures: number) => number;
  accountSourceExpiresAt: number;
  /** Failed logins of the source, on any email, per window. */
  perSource: number;
}

/**
 * The attempts a login reserved before its secret was checked: given back by `giveBack`
 * (a success, or a right secret that starts no session), kept as failures otherwise.
 */
export interface LoginReservation {
  /** Absent only in a reservation another counter refused, while it is given back. */
  account?: { key: string; count: number };
  accountSource?: { path: WaitCounterPath; reserved: WaitReserved };
  source?: { key: string };
}

/** Which counter refused an attempt, and until when (epoch s). */
export interface ReservationRefused {
  refused: 'account' | 'account_source' | 'source';
  until: number;
}

/**
 * What a reservation is given back as. `success`: the login is done; the email's run and this
 * source's failures on it end, the source's attempt becomes a good login. `right_secret`: the
 * secret was right but no session started (an unverified email): only this attempt is taken
 * back. `second_factor_due`: the password was right and the second factor is still to come:
 * the source's attempts are given back, the email's run keeps it until the second factor is
 * right (so MFA tokens cannot be minted past the account-wide ceiling; a source's own limits
 * stay for the codes it will send).
 */
export type GiveBack = 'success' | 'right_secret' | 'second_factor_due';

const DAY_SECONDS = 86_400;
/** How long a container goes by what it last read of the breaker before it reads it again. */
const BREAKER_READ_EVERY_MS = 1000;
const BREAKER_KEY = `${MIGRATION_KEY_PREFIX}breaker`;

/**
 * The login path's storage: the account, its failure counters and its sessions in one
 * consistent BatchGetItem, then each counter's attempt reserved by a conditional write before
 * the secret is checked (attempt-counters.ts), and given back after a success. Layout in table.ts.
 */
export class LoginGuardStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    /** The per-source window; the source counter's key depends on it. */
    private readonly windowSeconds: number,
  ) {}

  /** What this container last read or wrote of the breaker, and when (ms). */
  private breakerSeen: { retryAt?: number; atMs: number } | undefined;

  /**
   * `breaker`: also the lazy migration's breaker, in the same request. Every login reading one
   * item would make it the table's hottest key, so a container reads it at most once a second
   * and goes by what it read (or wrote) in between (LIMITS.md, "Capacity").
   */
  async read(target: LoginTarget, options: { breaker?: boolean } = {}): Promise<LoginState> {
    const nowSeconds = epochSeconds(target.now);
    const keys = this.keysOf(target);
    const nowMs = target.now.getTime();
    const readBreaker = options.breaker === true && (this.breakerSeen === undefined || nowMs - this.breakerSeen.atMs >= BREAKER_READ_EVERY_MS || nowMs < this.breakerSeen.atMs);
    const wanted = [...Object.values(keys), readBreaker ? BREAKER_KEY : undefined].filter((key): key is string => key !== undefined);
    const items = await batchGetByKey(this.client, this.tableName, wanted, 'readLoginState');
    if (readBreaker) {
      const item = items.get(BREAKER_KEY);
      const open = item !== undefined && count(item, TTL_ATTRIBUTE) > nowSeconds;
      this.breakerSeen = { ...(open && { retryAt: count(item, 'retryAt') }), atMs: nowMs };
    }
    const breakerRetryAt = options.breaker === true ? this.breakerSeen?.retryAt : undefined;
    const live = (key: string | undefined) => {
      const item = key === undefined ? undefined : items.get(key);
      // TTL deletes late (up to days): an expired item is no item.
      return item !== undefined && count(item, TTL_ATTRIBUTE) > nowSeconds ? item : undefined;
    };
    const userItem = items.get(keys.user);
    const factorsItem = items.get(keys.factors);
    const account = live(keys.account);
    const accountSource = live(keys.accountSource);
    const source = live(keys.source);
    return {
      sessions: toAccountSessions(target.accountKey, items.get(keys.sessions)),
      ...(userItem !== undefined && { user: toUserRecord(userItem) }),
      ...(factorsItem !== undefined && { factors: toStoredMfa(factorsItem) }),
      account: { failures: account ? count(account, 'failures') : 0, expiresAt: account ? count(account, TTL_ATTRIBUTE) : 0 },
      accountSource: {
        failures: accountSource ? count(accountSource, 'failures') : 0,
        blockedUntil: accountSource ? count(accountSource, 'blockedUntil') : 0,
      },
      source: {
        failures: source ? count(source, 'count') : 0,
        successes: source ? count(source, 'successes') : 0,
        windowEnd: windowStart(nowSeconds, this.windowSeconds) + this.windowSeconds,
      },
      ...(breakerRetryAt !== undefined && { breaker: { retryAt: breakerRetryAt } }),
    };
  }

  /**
   * The old system gave no answer: the breaker opens (or stays open) until `retryAt`, and is
   * remembered for a day at most without a question (then it closes by itself).
   */
  async openBreaker(now: Date, retryAt: number): Promise<void> {
    const nowSeconds = epochSeconds(now);
    this.breakerSeen = { retryAt, atMs: now.getTime() };
    await this.update('openBreaker', {
      Key: { pk: { S: BREAKER_KEY } },
      UpdateExpression: 'SET retryAt = :retryAt, openedAt = if_not_exists(openedAt, :now), #expiresAt = :expiresAt',
      ExpressionAttributeNames: { '#expiresAt': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':retryAt': { N: String(retryAt) }, ':now': { N: String(nowSeconds) }, ':expiresAt': { N: String(nowSeconds + DAY_SECONDS) } },
    });
  }

  /** The old system answered again: the breaker closes. */
  async closeBreaker(now: Date): Promise<void> {
    this.breakerSeen = { atMs: now.getTime() };
    try {
      await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: BREAKER_KEY } } }));
    } catch (error) {
      throw new StorageUnavailableError('closeBreaker', error);
    }
  }

  /**
   * Reserves this attempt on the login's three counters, in parallel, before the secret is
   * checked: the email's run (capped at the ceiling), the email from this source (its waits)
   * and the source's window (capped; `heldSource`: reserved already, by `reserveSource`).
   * Refused by any, the others are given back and nothing is checked. A failed attempt needs no
   * further write: its reservation is its count.
   */
  async reserve(target: LoginTarget, state: LoginState, limits: ReservationLimits, heldSource?: { key: string }): Promise<LoginReservation | ReservationRefused> {
    const keys = this.keysOf(target);
    const nowSeconds = epochSeconds(target.now);
    const accountSource = keys.accountSource === undefined ? undefined : accountSourcePath(keys.accountSource, limits.accountSourceExpiresAt);
    const settled = await Promise.allSettled([
      reserveUnderCap(this.client, this.tableName, { key: keys.account, attribute: 'failures', cap: limits.accountCeiling, nowSeconds, expiresAt: limits.accountExpiresAt, expiry: 'sliding' }),
      accountSource === undefined
        ? undefined
        : reserveWithWait(this.client, this.tableName, accountSource, state.accountSource, { nowSeconds, free: limits.freeFailures, blockedUntilAfter: limits.blockedUntilAfter }),
      keys.source === undefined || heldSource !== undefined
        ? undefined
        : reserveUnderCap(this.client, this.tableName, { key: keys.source, attribute: 'count', cap: limits.perSource, nowSeconds, expiresAt: state.source.windowEnd, expiry: 'fixed' }),
    ] as const);
    const [account, pair, source] = settled.map((result) => (result.status === 'fulfilled' ? result.value : undefined)) as [Reservation | undefined, WaitReservation | undefined, Reservation | undefined];
    const reservation: LoginReservation = {
      ...(account !== undefined && !isRefused(account) && { account: { key: keys.account, count: account.count } }),
      ...(accountSource !== undefined && pair !== undefined && !isRefused(pair) && { accountSource: { path: accountSource, reserved: pair } }),
      ...(keys.source !== undefined && source !== undefined && !isRefused(source) && { source: { key: keys.source } }),
      ...(heldSource !== undefined && { source: heldSource }),
    };
    const fault = settled.find((result) => result.status === 'rejected');
    const refused: ReservationRefused | undefined =
      account !== undefined && isRefused(account)
        ? { refused: 'account', until: account.refusedUntil }
        : pair !== undefined && isRefused(pair)
          ? { refused: 'account_source', until: pair.refusedUntil }
          : source !== undefined && isRefused(source)
            ? { refused: 'source', until: source.refusedUntil }
            : undefined;
    if (fault === undefined && refused === undefined) return reservation;
    // Nothing is checked: what was reserved goes back (best effort: a fault there only over-counts).
    await this.giveBack(reservation, 'right_secret').catch(() => undefined);
    if (fault !== undefined) throw (fault as PromiseRejectedResult).reason;
    return refused!;
  }

  /** Gives a reservation back (GiveBack says how much of it); see the type. */
  async giveBack(reservation: LoginReservation, as: GiveBack): Promise<void> {
    const { account, accountSource, source } = reservation;
    const success = as === 'success';
    await Promise.all([
      as === 'second_factor_due' || account === undefined ? undefined : giveBackUnderCap(this.client, this.tableName, { key: account.key, attribute: 'failures', ...(success && { clearAt: account.count }) }),
      accountSource === undefined ? undefined : giveBackWithWait(this.client, this.tableName, accountSource.path, accountSource.reserved, success),
      source === undefined ? undefined : this.giveBackSource(source.key, success),
    ]);
  }

  /**
   * A known device's good login (which reserved nothing here) ends the email's run and this
   * source's failures on it, each only if nothing was counted there since the read.
   */
  async clearFailures(target: LoginTarget, state: LoginState): Promise<void> {
    const keys = this.keysOf(target);
    await Promise.all([
      state.account.failures > 0 ? deleteAtCount(this.client, this.tableName, { key: keys.account, attribute: 'failures', count: state.account.failures }) : undefined,
      state.accountSource.failures > 0 && keys.accountSource !== undefined
        ? deleteAtCount(this.client, this.tableName, { key: keys.accountSource, attribute: 'failures', count: state.accountSource.failures })
        : undefined,
    ]);
  }

  /**
   * One attempt of a source on no account (a passkey login, before its credential names one),
   * reserved in the source's window like any login's.
   */
  async reserveSource(sourceKey: string | undefined, now: Date, perSource: number): Promise<{ key: string } | undefined | ReservationRefused> {
    if (sourceKey === undefined) return undefined;
    const nowSeconds = epochSeconds(now);
    const start = windowStart(nowSeconds, this.windowSeconds);
    const key = `${FAILURE_KEY_PREFIX}src#${sourceKey}#${start}`;
    const reserved = await reserveUnderCap(this.client, this.tableName, { key, attribute: 'count', cap: perSource, nowSeconds, expiresAt: start + this.windowSeconds, expiry: 'fixed' });
    return isRefused(reserved) ? { refused: 'source', until: reserved.refusedUntil } : { key };
  }

  /**
   * The source's attempt given back; a success counts as one of its good logins instead (read
   * with the failures, so the bound on good logins costs no read of its own). Best effort: a
   * lost give-back only counts one failure too many.
   */
  private async giveBackSource(key: string, success: boolean): Promise<void> {
    const names = { '#count': 'count', ...(success && { '#successes': 'successes' }) };
    const values = { ':minusOne': { N: '-1' }, ':zero': { N: '0' }, ...(success && { ':one': { N: '1' } }) };
    // False: already at 0 (given back twice by a retry): nothing to give.
    await conditionalUpdate(this.client, this.tableName, 'giveBackAttempt', {
      Key: { pk: { S: key } },
      UpdateExpression: success ? 'ADD #count :minusOne, #successes :one' : 'ADD #count :minusOne',
      ConditionExpression: '#count > :zero',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }

  /** After a new password: the account's run of failures ends (from every source it is the same run). */
  async clearAccountFailures(accountKey: string, sourceKey?: string): Promise<void> {
    await Promise.all([
      this.delete(accountFailureKey(accountKey)),
      // And the waits of the source that set the new password: the owner, back from their mailbox.
      ...(sourceKey === undefined ? [] : [this.delete(`${accountFailureKey(accountKey)}#src#${sourceKey}`)]),
    ]);
  }

  private keysOf(target: LoginTarget) {
    const nowSeconds = epochSeconds(target.now);
    const { sourceKey } = target;
    return {
      user: userKey(target.email),
      account: accountFailureKey(target.accountKey),
      accountSource: sourceKey === undefined ? undefined : `${accountFailureKey(target.accountKey)}#src#${sourceKey}`,
      source: sourceKey === undefined ? undefined : `${FAILURE_KEY_PREFIX}src#${sourceKey}#${windowStart(nowSeconds, this.windowSeconds)}`,
      sessions: sessionsKey(target.accountKey),
      factors: mfaKey(target.accountKey),
    };
  }

  private async update(operation: string, input: Omit<UpdateItemCommandInput, 'TableName'>): Promise<void> {
    try {
      await this.client.send(new UpdateItemCommand({ TableName: this.tableName, ...input }));
    } catch (error) {
      throw new StorageUnavailableError(operation, error);
    }
  }

  private async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: key } } }));
    } catch (error) {
      throw new StorageUnavailableError('clearFailures', error);
    }
  }
}

/** The failures of one email from one source: a count and the wait it earned, in their own item. */
function accountSourcePath(key: string, expiresAt: number): WaitCounterPath {
  return {
    key,
    names: { '#f': 'failures', '#b': 'blockedUntil' },
    failures: '#f',
    blockedUntil: '#b',
    expiresAt,
    read: (item, nowSeconds): WaitCount =>
      item === undefined || count(item, TTL_ATTRIBUTE) <= nowSeconds ? { failures: 0, blockedUntil: 0 } : { failures: count(item, 'failures'), blockedUntil: count(item, 'blockedUntil') },
  };
}

export function accountFailureKey(accountKey: string): string {
  return `${FAILURE_KEY_PREFIX}acct#${accountKey}`;
}

/** Failure items outlive their last failure by at least a day, so slow guessing is still counted. */
export const FAILURE_MEMORY_SECONDS = DAY_SECONDS;

function windowStart(nowSeconds: number, windowSeconds: number): number {
  return nowSeconds - (nowSeconds % windowSeconds);
}

function count(item: Record<string, AttributeValue>, name: string): number {
  return countAttribute(item, name, 'failures');
}
