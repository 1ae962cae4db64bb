import type { AwsConnection } from '../../shared/aws-connection.js';

/**
 * Lazy migration at login (README.md here): the old system that checks the passwords of emails
 * passlane has no account for yet, over HTTPS or as a Lambda function. Off unless one of
 * PASSLANE_MIGRATION_URL and PASSLANE_MIGRATION_FUNCTION is set (config/migration-config.ts reads
 * them); in code, pass one of these, or none.
 */
export type MigrationConfig = UrlMigrationConfig | FunctionMigrationConfig;

export interface UrlMigrationConfig {
  kind: 'url';
  /** PASSLANE_MIGRATION_URL: https (http only on localhost, 127.0.0.1, [::1]); no credentials or fragment. */
  url: string;
  /** PASSLANE_MIGRATION_SECRET (or its _PARAMETER): the HMAC-SHA256 key of the request signature, as UTF-8. */
  secret: string;
  timeoutMs: number;
}

export interface FunctionMigrationConfig {
  kind: 'function';
  /** PASSLANE_MIGRATION_FUNCTION: a name, `account:function:name` or a full ARN, each with an optional `:qualifier`. */
  functionName: string;
  timeoutMs: number;
  /** Region: a full ARN's, else AWS_REGION. PASSLANE_MIGRATION_LAMBDA_ENDPOINT: a local stand-in (tests). */
  connection: AwsConnection;
}

/** PASSLANE_MIGRATION_TIMEOUT_MS: the whole question, connection to last byte; short, since a login waits on it. */
export const DEFAULT_MIGRATION_TIMEOUT_MS = 3_000;
/** A shorter secret is guessable offline from one captured request; 32 characters of `openssl rand -hex 32` are 128 bits. */
export const MIN_MIGRATION_SECRET_LENGTH = 32;
