import { StorageUnavailableError, type StorageUnavailableReason } from '../../storage/errors.js';
import type { StorageConfig } from '../../storage/settings.js';

/**
 * What to change when a bulk command met storage it could not use: the settings by name, since
 * the error itself (an SDK error's name) rarely says. Undefined when the failure says enough.
 */
export function storageHint(error: unknown, storage: Pick<StorageConfig, 'endpoint' | 'table'>): string | undefined {
  const failure = storageFailureOf(error);
  if (failure === undefined) return undefined;
  const { endpoint, table } = storage;
  const local = 'or DYNAMODB_ENDPOINT=http://127.0.0.1:8000 to use the DynamoDB `npm start` runs';
  const hints: Record<StorageUnavailableReason, string | undefined> = {
    no_region: `Set AWS_REGION to the table's region (and AWS credentials), ${local}.`,
    no_credentials: `Give AWS credentials (AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), ${local}.`,
    credentials_refused: 'AWS did not accept the credentials: check AWS_PROFILE or the access keys (expired? another account?).',
    access_denied: `The credentials may not use the table ${table}: their IAM policy needs DynamoDB access to it (packages/server/src/features/rehash/README.md).`,
    no_table: endpoint
      ? `${endpoint} has no table ${table}: check PASSLANE_TABLE (npm start creates passlane-users, or its PASSLANE_TABLE, when it starts).`
      : `AWS has no table ${table} in this region: check PASSLANE_TABLE and AWS_REGION.`,
    unreachable: endpoint
      ? `Nothing answered at DYNAMODB_ENDPOINT=${endpoint}: is npm start (or your DynamoDB) running there?`
      : 'DynamoDB did not answer: check the network and AWS_REGION.',
    other: undefined,
  };
  return hints[failure.reason];
}

/** The StorageUnavailableError an error is, or was caused by (an import stops with one as its cause). */
export function storageFailureOf(error: unknown): StorageUnavailableError | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause instanceof StorageUnavailableError) return cause;
  }
  return undefined;
}
