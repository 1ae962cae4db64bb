import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { PasswordHasher, PasswordHasherOptions, VerifyBudget } from 'passlane/common';
import type { MailWiringOptions } from '../mail/account-mail.js';
import type { Blocklist } from '../features/password/rules/blocklist.js';
import type { Audit } from '../accounts/audit-events.js';
import type { MigrationSource } from '../features/migration/migration-source.js';
import type { FunctionMigrationConfig } from '../features/migration/settings.js';
import type { DynamoDbConnection } from '../storage/settings.js';
import type { CreateJwsSigner } from '../features/tokens/sign-jws.js';
import type { LambdaInvoker } from '../hooks/lambda-hook.js';
import type { AwsConnection } from '../shared/aws-connection.js';

/**
 * What differs between the places passlane runs, and nothing else: which hashing entry the
 * bundle holds (Node's native binding or the edge's imported WASM module), how a DynamoDB client
 * gets its credentials, and where logs and audit events go. build-dependencies.ts turns the
 * configuration into services the same way for every platform.
 */
export interface Platform {
  createPasswordHasher(options: PasswordHasherOptions): PasswordHasher;
  /** Host limits on hashing (an isolate's memory), on top of the configuration. */
  hasherLimits?: Pick<PasswordHasherOptions, 'concurrency' | 'limits'>;
  /** What one verify may use here where the configuration does not say (PASSLANE_VERIFY_*). */
  defaultVerifyBudget?: VerifyBudget;
  dynamoDb(connection: DynamoDbConnection): DynamoDBClient;
  /** How access tokens are signed here; Web Crypto where not given (features/tokens/README.md, "The signer"). */
  jwsSigner?: CreateJwsSigner;
  warn(message: string, fields?: Record<string, unknown>): void;
  audit: Audit;
  /** How mail reaches SES here and where its lines go (the Worker passes its fetch-based SES client). */
  mail?: Pick<MailWiringOptions, 'sesClient' | 'log'>;
  /**
   * The common-password blocklist (packages/server/src/features/password/rules/bundled-blocklist.ts), decoded on first use.
   * Absent where no password is set (the login and rehash functions), so their bundles leave the
   * data out; a policy built without it refuses to check a new password (BlocklistUnavailableError).
   */
  passwordBlocklist?: () => Promise<Blocklist>;
  /**
   * Lazy migration's Lambda form (PASSLANE_MIGRATION_FUNCTION), loading the SDK's Lambda client
   * only when called. Absent where there is no AWS SDK (the Worker): the HTTPS form only there.
   */
  migrationFunction?: (config: FunctionMigrationConfig) => Promise<MigrationSource>;
  /**
   * Called after a write that recorded account events committed, with the account's id
   * (storage/event-outbox.ts `afterAppend`): a long-lived host's delivery starts at once. Absent
   * on Lambda, where the table's stream wakes the events function.
   */
  afterEventAppend?: (accountId: string) => void;
  /**
   * A hook's Lambda form (PASSLANE_TOKEN_HOOK_FUNCTION, PASSLANE_SIGNUP_HOOK_FUNCTION), loading
   * the SDK's Lambda client only when called. Absent where there is no AWS SDK: HTTPS hooks only.
   */
  hookInvoker?: (connection: AwsConnection, timeoutMs: number) => Promise<LambdaInvoker>;
}
