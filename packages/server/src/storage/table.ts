import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { StorageUnavailableError } from './errors.js';

/**
 * One table for everything passlane stores, keyed by a string partition key `pk` alone (every
 * access is by exact key, so no sort key). One sparse, keys-only index on `userId` finds the
 * account behind an access token (tokens carry the userId, never the email).
 *
 * Accounts      pk = "user#" + email (in canonical form: packages/server/src/accounts/canonical-email.ts)
 *               userId S, email S, passwordHash S (opaque to the store),
 *               createdAt S, updatedAt S, passwordChangedAt S? (ISO 8601, UTC); switchFrom S? (an
 *               address switch under way on a server without transactions: email-switch-store.ts)
 * Rate limits   pk = "ratelimit#" + key + "#" + windowStart (epoch seconds)
 *               count N (atomic ADD), expiresAt N (epoch seconds; the table's TTL attribute)
 * Failures      pk = "failures#acct#" + email fingerprint
 *               failures N, expiresAt N: consecutive failed logins on one email, any source
 *               pk = "failures#acct#" + email fingerprint + "#src#" + source
 *               failures N, blockedUntil N, expiresAt N: one email from one source
 *               pk = "failures#src#" + source + "#" + windowStart
 *               count N, successes N, expiresAt N: failed logins from one source, on any
 *               account, and its good logins without a known device
 *               pk = "failures#refresh#src#" + source + "#" + windowStart
 *               count N, expiresAt N: failed refreshes from one source
 * Sessions      pk = "sessions#" + email fingerprint
 *               sessions M (session id -> one session, session-store.ts), devices M (device id
 *               -> one known device), epoch N (moves on when a password change purges them),
 *               loginWindow N, loginCount N (good logins in the current window), expiresAt N
 *               (the latest end of a session or a device)
 * One-time      pk = "token#reset#" or "token#verify#" + email fingerprint
 * tokens        tokenHash S (SHA-256 of the secret), email S, wrongGuesses N, expiresAt N:
 *               the account's outstanding password-reset or email-verification token
 *               pk = "token#device#" + email fingerprint + "#" + SHA-256 of the link's secret
 *               clientHash S (SHA-256 of the asking client's secret), accountUserId S? (absent
 *               for an email without an account), epoch N, wrongClients N, expiresAt N: a device
 *               approval waiting for its link (device-approval-store.ts, 15 minutes)
 *               pk = "token#undo#" + email fingerprint + "#" + SHA-256 of the secret
 *               accountUserId S, email S, factor S (totp | passkey), sealedSecret S? |
 *               credentialId S?, expiresAt N: a "this wasn't me" link of a factor just added,
 *               one item per link (factor-undo-store.ts)
 *               pk = "token#email-change#" + email fingerprint: as reset and verify, plus newEmail S:
 *               the account's outstanding change of address, its link mailed to the new one
 *               pk = "token#email-undo#" + old email's fingerprint + "#" + SHA-256 of the secret
 *               accountUserId S, oldEmail S, newEmail S, expiresAt N: a change of address's "this
 *               wasn't me" link, mailed to the old address, one item per link (email-undo-store.ts)
 * Second        pk = "mfa#" + email fingerprint
 * factors       accountUserId S, totpSecret S (sealed: features/mfa/secret-box.ts), totpLastStep N,
 *               totpEnabledAt N, pendingSecret S, pendingExpiresAt N (an enrolment not yet
 *               confirmed), recoveryCodes SS (SHA-256 of each unused code: the account's factors'
 *               as a whole, set with its first factor, removed with its last), passkeys M
 *               (credential id, base64url -> { publicKey B (COSE), counter N, transports L,
 *               backupEligible BOOL, backedUp BOOL, name S, createdAt N, lastUsedAt N?, aaguid S },
 *               at most 10: passkey-store.ts); no TTL
 * Passkey       pk = "passkey#" + credential id (base64url)
 * lookups       accountUserId S, accountKey S, email S: whose a credential is, for a login with
 *               no email (POST /passkey/login); put only if absent, so a credential is registered once
 * WebAuthn      pk = "webauthn#" + SHA-256 of the challenge (base64url)
 * challenges    purpose S (registration | login), accountUserId S?, accountKey S?, expiresAt N:
 *               a challenge waiting for its answer, spent by a conditional delete (5 minutes)
 * MFA logins    pk = "mfalogin#" + SHA-256 of the MFA token's secret
 *               accountUserId S, email S, accountKey S, passwordMark S, wrongCodes N, expiresAt N:
 *               webauthnChallenge S? (the passkey assertion's challenge, spent with the token):
 *               a password step passed on an account with a second factor (POST /login/mfa);
 *               both name the user `accountUserId`, not `userId`, to stay out of the userId index
 * Migration     pk = "migration#breaker"
 *               openedAt N, retryAt N, expiresAt N: lazy migration's old system gave no answer
 *               (packages/server/src/features/migration/migrate-account.ts); gone when it answers again
 * Job cursors   pk = "job#" + job name (e.g. "job#rehash")
 *               cursor S (opaque to the store), updatedAt S; replaced conditionally
 * Federated     pk = "oauth#state#", "oauth#code#" or "oauth#link#" + SHA-256 of the step's secret
 * sign-in       payload S (JSON, the feature's: features/federation), expiresAt N: an authorization
 * steps         request waiting for its callback (10 minutes), an app code waiting to be redeemed
 *               (60 seconds), an identity waiting to be linked (10 minutes); each spent by a
 *               conditional delete (federation-flow-store.ts)
 * Identities    pk = "identity#" + provider + "#" + subject
 *               accountUserId S, email S, accountKey S, createdAt N: whose an identity at a provider
 *               is; put only if absent, so an identity has one account (identity-store.ts)
 *               pk = "identities#" + email fingerprint
 *               accountUserId S, identities M (id -> { provider S, subject S, email S?, linkedAt N }):
 *               the account's identities, as GET /identities lists them; no TTL
 * Account       pk = "outbox#" + the account's userId (stable across a change of address)
 * events        events L (oldest first, in the order the writes committed; each M: id S, type S,
 *               time S, accountId S, data S = the event's data as JSON), pendingSince N (epoch
 *               seconds of the oldest append not yet delivered): appended in the same
 *               TransactWriteItems as the change (event-outbox.ts, an UpdateItem with no
 *               condition); the delivery's lease and progress live on the same item, and its
 *               per-destination status and dead letters on items of their own ("outbox-status#",
 *               "outbox-dead#": outbox-delivery-store.ts); the item goes when its list is empty; no TTL
 *               leaseOwner S, leaseUntil N (epoch ms): the deliverer holding it; headAttempts N,
 *               headDone SS (the destinations that have events[0]), nextAttemptAt N (epoch ms),
 *               headLastError S: the head's progress (features/events/README.md)
 *               pk = "outbox-status#" + destination (`webhook:<name>`, `eventbridge:<bus>`)
 *               delivered N, failures N, deadLettered N, lastError S, lastErrorAt S; no TTL
 *               pk = "outbox-dead#" + destination + "#" + event id
 *               sink S, event M (as in the list), error S, attempts N, deadLetteredAt S,
 *               expiresAt N: an event the destination refused on every attempt
 *
 * The prefixes keep the kinds apart; TTL only ever applies to rate-limit, failure, session,
 * one-time token, MFA login, WebAuthn challenge, federated sign-in step, migration and dead-lettered event items because only they carry `expiresAt` (and readers check it: TTL deletes up to days late).
 */
export { DEFAULT_TABLE_NAME } from './settings.js';
export const PARTITION_KEY = 'pk';
export const TTL_ATTRIBUTE = 'expiresAt';
export const USER_KEY_PREFIX = 'user#';
export const RATE_LIMIT_KEY_PREFIX = 'ratelimit#';
export const JOB_KEY_PREFIX = 'job#';
export const FAILURE_KEY_PREFIX = 'failures#';
export const SESSIONS_KEY_PREFIX = 'sessions#';
export const ONE_TIME_TOKEN_KEY_PREFIX = 'token#';
export const MIGRATION_KEY_PREFIX = 'migration#';
export const FACTOR_UNDO_KEY_PREFIX = `${ONE_TIME_TOKEN_KEY_PREFIX}undo#`;
export const EMAIL_UNDO_KEY_PREFIX = `${ONE_TIME_TOKEN_KEY_PREFIX}email-undo#`;
export const MFA_KEY_PREFIX = 'mfa#';
export const MFA_LOGIN_KEY_PREFIX = 'mfalogin#';
export const PASSKEY_KEY_PREFIX = 'passkey#';
export const WEBAUTHN_CHALLENGE_KEY_PREFIX = 'webauthn#';
export const FEDERATION_FLOW_KEY_PREFIX = 'oauth#';
export const IDENTITY_KEY_PREFIX = 'identity#';
export const IDENTITIES_KEY_PREFIX = 'identities#';
export const OUTBOX_KEY_PREFIX = 'outbox#';
/** One item per event destination (`outbox-status#<sink>`): its counts and last error (outbox-delivery-store.ts). */
export const OUTBOX_STATUS_KEY_PREFIX = 'outbox-status#';
/** One item per event a destination never took: `outbox-dead#<sink>#<event id>` (outbox-delivery-store.ts). */
export const OUTBOX_DEAD_KEY_PREFIX = 'outbox-dead#';
export const USER_ID_INDEX = 'userId-index';

/** The kinds of second factor, as a login names them; each kind's failures are counted on its own. */
export type FactorKind = 'totp' | 'recovery_code' | 'webauthn';

/** Where each kind's failures are counted in the `mfa#` item (features/mfa/factor-failures.ts). */
export const FACTOR_FAILURE_ATTRIBUTES: Readonly<Record<FactorKind, string>> = { totp: 'totpFailures', recovery_code: 'recoveryCodeFailures', webauthn: 'webauthnFailures' };

/** A right factor proves control of the account: every kind's count ends, in the write that spends it. */
export const CLEAR_FACTOR_FAILURES = Object.values(FACTOR_FAILURE_ATTRIBUTES).join(', ');

/** An account's second-factors item (`mfa#`), which mfa-store.ts and passkey-store.ts both write. */
export function mfaKey(accountKey: string): string {
  return `${MFA_KEY_PREFIX}${accountKey}`;
}

/** The table definition as data, for ensureTable and for infrastructure code to share. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: 'userId', AttributeType: 'S' },
    ],
    KeySchema: [{ AttributeName: PARTITION_KEY, KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [
      {
        IndexName: USER_ID_INDEX,
        KeySchema: [{ AttributeName: 'userId', KeyType: 'HASH' }],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  };
}

export interface EnsureTableOptions {
  /** Longest wait for the table to become ACTIVE, in seconds (real AWS takes a few seconds). */
  maxWaitSeconds?: number;
}

/**
 * Creates the table if missing, waits until it is ACTIVE and enables TTL on `expiresAt`.
 * Idempotent and safe to run concurrently (a lost CreateTable race counts as "exists").
 * Meant for local development and tests; in AWS the infrastructure code owns the table.
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  options: EnsureTableOptions = {},
): Promise<void> {
  try {
    if (!(await tableExists(client, tableName))) {
      try {
        await client.send(new CreateTableCommand(tableDefinition(tableName)));
      } catch (error) {
        if (errorName(error) !== 'ResourceInUseException') throw error;
      }
    }
    const result = await waitUntilTableExists(
      { client, minDelay: 1, maxDelay: 5, maxWaitTime: options.maxWaitSeconds ?? 120 },
      { TableName: tableName },
    );
    if (result.state !== 'SUCCESS') throw new Error(`table did not become ACTIVE: ${result.state}`);
    await enableTimeToLive(client, tableName);
  } catch (error) {
    throw new StorageUnavailableError('ensureTable', error);
  }
}

async function tableExists(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if (errorName(error) === 'ResourceNotFoundException') return false;
    throw error;
  }
}

/**
 * TTL is housekeeping only (old rate-limit windows are never read again, and real DynamoDB
 * deletes expired items lazily anyway), so an emulator without UpdateTimeToLive (dynalite)
 * is tolerated.
 */
async function enableTimeToLive(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    const { TimeToLiveDescription: ttl } = await client.send(
      new DescribeTimeToLiveCommand({ TableName: tableName }),
    );
    if (ttl?.TimeToLiveStatus === 'ENABLED' || ttl?.TimeToLiveStatus === 'ENABLING') return;
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
  } catch (error) {
    if (errorName(error) === 'UnknownOperationException') return;
    // A concurrent ensureTable enabled it first.
    if (errorName(error) === 'ValidationException' && /already enabled/i.test(errorMessage(error))) return;
    throw error;
  }
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : '';
}
