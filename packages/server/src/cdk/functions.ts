/**
 * The one description of passlane's Lambda functions: name, entry, handler, memory, timeout,
 * environment, routes and permissions. Both deployments are rendered from it:
 *   - the CDK construct (./passlane-auth.ts) builds its functions and roles from it at synth;
 *   - `npm run generate:infra` (scripts/packaging/serverless-infra.ts) writes serverless.yml's
 *     `functions` and `provider.environment` sections and infra/iam-roles.yml, and a test fails
 *     when the committed files differ.
 * scripts/packaging/lambda-functions.ts takes the list of functions (what to bundle) from here too.
 *
 * Values that depend on the deployment are named, never given: a table reference, a secret's SSM
 * parameter name, or a setting (a serverless.yml param, a construct prop). This module holds data
 * only and imports nothing, so the construct, the scripts and the tests all read the same thing.
 */

/** The SSM parameters the functions read at cold start (their names only ever reach a template). */
export type SecretName = 'pepperKeys' | 'jwtPrivateKey' | 'fingerprintKey' | 'mfaKeys' | 'migrationSecret' | 'oauthSecrets' | 'webhooks' | 'tokenHookSecrets' | 'signupHookSecrets';

/**
 * Deploy-time settings. `custom`: serverless.yml computes the value (custom.<name>) and the
 * construct from its props, each with the same default (test/cdk-construct.test.ts compares the
 * two templates). `param`: a plain value with its default here; `null` means unset, and the
 * variable is then left out of the function's environment in both templates.
 */
export interface Setting {
  kind: 'custom' | 'param';
  /** For `param`: the default, or null for "unset, no variable". */
  default?: string | null;
}

export const SETTINGS = {
  // Tokens: `iss` (the API's URL unless a custom domain is given), `aud`, the public JWKS.
  jwtIssuer: { kind: 'custom' },
  jwtAudience: { kind: 'custom' },
  jwtPublicKeys: { kind: 'custom' },
  jwtPreviousPublicKeys: { kind: 'param', default: '' },
  // Changing it replaces every container, so all of them read the parameters again.
  secretsRevision: { kind: 'param', default: '1' },
  authorizerCacheSeconds: { kind: 'param', default: '5' },
  hasherMemorySize: { kind: 'custom' },
  // Mail: the sender, the app receiving the links, the identity (derived from the sender's domain).
  mailFrom: { kind: 'custom' },
  appUrl: { kind: 'custom' },
  sesIdentity: { kind: 'custom' },
  sesConfigurationSet: { kind: 'custom' },
  emailVerification: { kind: 'custom' },
  requireVerifiedEmail: { kind: 'custom' },
  // Optional tuning: absent unless set (packages/server/src/config/README.md has ranges and defaults).
  argon2Backend: { kind: 'param', default: null },
  loginLimitPerIp: { kind: 'param', default: null },
  loginLimitWindowSeconds: { kind: 'param', default: null },
  passwordChangeLimitPerAccount: { kind: 'param', default: null },
  loginFailuresPerAccountSource: { kind: 'param', default: null },
  loginDelayBaseSeconds: { kind: 'param', default: null },
  loginDelayMaxSeconds: { kind: 'param', default: null },
  loginAccountFailureCeiling: { kind: 'param', default: null },
  loginAccountLockSeconds: { kind: 'param', default: null },
  loginFailureFloorMs: { kind: 'param', default: null },
  loginSuccessLimitPerAccount: { kind: 'param', default: null },
  loginSuccessLimitPerIp: { kind: 'param', default: null },
  loginFailurePadFactor: { kind: 'param', default: null },
  // Lazy migration from a legacy user store, at login and registration (packages/server/src/features/migration/README.md): an https endpoint
  // (requests signed with a shared secret in SSM) or a Lambda function (signed by IAM). Unset: no
  // variable, no permission.
  migrationUrl: { kind: 'param', default: null },
  migrationFunction: { kind: 'param', default: null },
  migrationTimeoutMs: { kind: 'param', default: null },
  // Browser apps on other origins, comma-separated (PASSLANE_CORS_ORIGINS): the functions answer
  // CORS themselves, preflights included, since API Gateway has no CORS of its own here
  // (apiGatewayRoutes below). Unset: no other origin, but the public keys and discovery answer any.
  corsOrigins: { kind: 'param', default: null },
  // OAuth (docs/oauth.md): every token's client_id and scope, and the scope a token must carry
  // where a function verifies one. Unset: client_id `passlane`, no scope, none required.
  oauthClientId: { kind: 'param', default: null },
  tokenScopes: { kind: 'param', default: null },
  requiredScope: { kind: 'param', default: null },
  // Second factors (packages/server/src/features/mfa/README.md): the issuer authenticator apps
  // show (PASSLANE_SERVICE_NAME's by default), and whether Bearer routes and the authorizer
  // refuse tokens whose login used no second factor. Unset: `passlane`, not required.
  mfaIssuer: { kind: 'param', default: null },
  requireMfa: { kind: 'param', default: null },
  // Passkeys (packages/server/src/features/passkeys/README.md): the relying party this API is
  // (a domain, never an IP), the exact origins of the pages that call it (comma-separated), and
  // the name authenticators show. Unset: passkeys are off (every passkey route answers 501).
  webauthnRpId: { kind: 'param', default: null },
  webauthnOrigins: { kind: 'param', default: null },
  webauthnRpName: { kind: 'param', default: null },
  // Sign-in with providers (packages/server/src/features/federation/README.md): the providers as
  // JSON (PASSLANE_OAUTH_PROVIDERS; their secrets in the oauthSecrets parameter), and the URL
  // their callbacks come back to (the API's, i.e. the issuer, by default). Unset: no provider,
  // every provider route answers provider_not_found.
  oauthProviders: { kind: 'param', default: null },
  publicUrl: { kind: 'param', default: null },
  // Account events (packages/server/src/events/README.md): `on` records each change of an
  // account in its outbox, in the same write (the functions that change accounts get
  // PASSLANE_EVENTS and may append to `outbox#` whatever this says: nothing appends while off).
  events: { kind: 'param', default: 'off' },
  // Sign-in events too (packages/server/src/events/README.md, "Sign-in events"): `on` adds a
  // `session.started` to each login's session write (a transaction then: its cost is written
  // there); only while `events` is on. The login functions get PASSLANE_EVENTS_SIGN_IN.
  eventsSignIn: { kind: 'param', default: 'off' },
  // Account events (infra/README.md, "Account events"): the EventBridge bus the events function
  // publishes to, by name (a bus of this account and region; `default` is the account's default
  // bus). Unset: no EventBridge destination and no events:PutEvents in any role.
  eventBus: { kind: 'param', default: null },
  // Where the events function's alarms notify (an SNS topic's ARN). Unset: the alarms change
  // state in CloudWatch and notify nobody.
  alarmTopicArn: { kind: 'param', default: null },
  // Hooks (packages/server/src/hooks/README.md): the token hook (extra access-token claims, asked
  // by the functions that mint tokens) and the sign-up hook (asked by those that create
  // accounts), each an https endpoint (signed with the secrets in SSM) or a Lambda function
  // (signed by IAM). Unset: no variable, no permission.
  tokenHookUrl: { kind: 'param', default: null },
  tokenHookFunction: { kind: 'param', default: null },
  tokenHookTimeoutMs: { kind: 'param', default: null },
  tokenHookOnFailure: { kind: 'param', default: null },
  signupHookUrl: { kind: 'param', default: null },
  signupHookFunction: { kind: 'param', default: null },
  signupHookTimeoutMs: { kind: 'param', default: null },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** Where an environment variable's value comes from. */
export type EnvSource =
  | { kind: 'literal'; value: string }
  /** The table's name: serverless.yml's plain custom.tableName (passlane-<stage>-users); the construct's table's generated one. */
  | { kind: 'table' }
  /** A secret's SSM parameter name; `optional`: only when that secret is configured. */
  | { kind: 'parameterName'; secret: SecretName; optional?: boolean }
  | { kind: 'setting'; setting: SettingName };

/** Which secrets are always there, and which only when their setting is given. */
export const SECRETS: Record<SecretName, { optional: boolean; why: string }> = {
  pepperKeys: { optional: false, why: 'the pepper keys, "id:base64" (SecureString)' },
  jwtPrivateKey: { optional: false, why: 'the JWT signing key, a private JWK (SecureString)' },
  fingerprintKey: { optional: false, why: 'the HMAC key of email fingerprints (SecureString)' },
  mfaKeys: { optional: false, why: 'the keys sealing TOTP secrets, "id:base64" (SecureString)' },
  migrationSecret: { optional: true, why: 'the key that signs requests to the legacy store\'s URL (SecureString); only with a migration by URL' },
  oauthSecrets: { optional: true, why: 'the sign-in providers\' client secrets and Apple\'s key, JSON by provider name (SecureString); only with providers that have one' },
  webhooks: { optional: true, why: 'the webhooks account events go to, PASSLANE_WEBHOOKS\' JSON with their URLs and signing secrets (SecureString); only with webhooks' },
  tokenHookSecrets: { optional: true, why: 'the Standard Webhooks secrets that sign requests to the token hook\'s URL, space-separated (SecureString); only with a token hook by URL' },
  signupHookSecrets: { optional: true, why: 'the Standard Webhooks secrets that sign requests to the sign-up hook\'s URL, space-separated (SecureString); only with a sign-up hook by URL' },
};

export type DynamoDbItemAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:BatchGetItem';

/**
 * One permission of a function's role, beyond writing to its own log group (every role has that,
 * and no other logs permission). `why` becomes the comment above the statement in iam-roles.yml.
 */
export type Grant =
  /** Items of the table, limited to partition-key prefixes (dynamodb:LeadingKeys, ForAllValues). */
  | { kind: 'items'; action: DynamoDbItemAction; keys: readonly string[]; exact?: boolean; why: string }
  /** A query of an index (keys-only indexes carry no item data beyond keys). */
  | { kind: 'index'; action: 'dynamodb:Query'; index: string; why: string }
  /** The whole table: a Scan has no partition key, so no LeadingKeys condition can narrow it. */
  | { kind: 'scan'; why: string }
  /** ssm:GetParameter on these secrets' parameters (an optional secret: only when configured). */
  | { kind: 'parameters'; secrets: readonly SecretName[]; why: string }
  /** ses:SendEmail as the configured identity (and configuration set), only when mail is configured. */
  | { kind: 'sendMail'; why: string }
  /** lambda:InvokeFunction on the function a setting names, only when it is set. */
  | { kind: 'invokeFunction'; setting: SettingName; why: string }
  /** Reading the table's streams (what Lambda does, as the function's role, to feed it a `tableStream` trigger). */
  | { kind: 'readTableStream'; why: string }
  /** sqs:SendMessage on the function's own dead-letter queue (Lambda sends a `tableStream` trigger's failed batches there, as the role). */
  | { kind: 'sendToDeadLetterQueue'; why: string }
  /** events:PutEvents on the EventBridge bus a setting names, only when it is set. */
  | { kind: 'putEvents'; setting: SettingName; why: string };

/**
 * A function fed by the table's stream (DynamoDB Streams, keys only): Lambda reads the stream
 * and invokes it with batches of the records whose partition key starts with `keyPrefix` (the
 * event source mapping's filter: other records are dropped by Lambda, at no invocation; a
 * DynamoDB mapping filters on the record's `dynamodb` key alone, so removals come through too
 * and the handler skips them). Records of one key reach the function in the order they
 * were written, also with `parallelizationFactor` > 1 (Lambda splits a shard by key). The function
 * answers ReportBatchItemFailures; a failed batch is split in two (BisectBatchOnFunctionError) and
 * retried, and what still fails after `maximumRetryAttempts` or `maximumRecordAgeSeconds` is
 * described in a message to the function's dead-letter queue (an SQS queue of its own, with an
 * alarm), and the shard moves on.
 */
export interface TableStreamTrigger {
  keyPrefix: string;
  startingPosition: 'TRIM_HORIZON' | 'LATEST';
  batchSize: number;
  maximumBatchingWindowSeconds: number;
  parallelizationFactor: number;
  maximumRetryAttempts: number;
  maximumRecordAgeSeconds: number;
  /** The iterator age (milliseconds) over which its alarm fires: the stream is falling behind. */
  iteratorAgeAlarmMs: number;
}

export interface FunctionDescription {
  /** Key in serverless.yml, the zip's name, the construct's id. */
  name: string;
  /** Bundled by scripts/package-functions.ts into `<name>.zip`, as index.mjs. */
  entry: string;
  /** What it is, for the comment above it. */
  why: string;
  /** MB, or the setting that sizes the hashing functions. */
  memory: number | { setting: 'hasherMemorySize' };
  /** Seconds. */
  timeout: number;
  /** One run at a time, where overlapping runs would fight. */
  reservedConcurrency?: number;
  /** HTTP API routes, `METHOD /path`. */
  routes: readonly string[];
  /**
   * Who API Gateway lets through to its routes. Unset: anyone (passlane's own routes check
   * tokens themselves). `iam`: API Gateway's AWS_IAM authorization: only requests signed (SigV4)
   * by an IAM principal whose policy allows `execute-api:Invoke` on the route reach the function,
   * and the principal's ARN comes with the event (the operator API, infra/README.md "Operator
   * API"). Such routes get no preflight route: no browser page holds an operator's AWS keys.
   */
  routeAuthorization?: 'iam';
  /** Its own variables, on top of COMMON_ENVIRONMENT. */
  environment: Readonly<Record<string, EnvSource>>;
  grants: readonly Grant[];
  /** Invoked by the table's stream (see TableStreamTrigger); it then has a dead-letter queue and alarms. */
  tableStream?: TableStreamTrigger;
}

/** Every function's handler: scripts/package-functions.ts bundles each into index.mjs. */
export const HANDLER = 'index.handler';
export const DEFAULT_MEMORY_MB = 256;
export const DEFAULT_TIMEOUT_S = 10;
export const HASHER_MEMORY_MB = 1024;
/** What CloudWatch keeps of the functions' logs and the API's access logs. */
export const LOG_RETENTION_DAYS = 30;
/** Stage throttling of the HTTP API (every route): a ceiling on cost and guesses per second. */
export const DEFAULT_THROTTLING = { rateLimit: 50, burstLimit: 100 } as const;
export const TABLE_INDEX = 'userId-index';
/**
 * The table's stream: keys only. It is a doorbell (the outbox item's key says which account has
 * events waiting), never a copy of the data: no attribute of any item, a hash or an address
 * least of all, is ever in a stream record, and the events function reads the outbox itself.
 */
export const TABLE_STREAM_VIEW = 'KEYS_ONLY';
/** What Lambda calls on the table's stream, as the function's role, to feed it (AWS's example policy for a DynamoDB trigger). */
export const STREAM_READ_ACTIONS = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'] as const;
/** How long a dead-letter queue keeps a message: the longest SQS allows. */
export const DEAD_LETTER_RETENTION_SECONDS = 1_209_600;

/** The event source mapping's one filter, as both templates write it (its JSON is FilterCriteria.Filters[0].Pattern). */
export function streamFilterPattern(trigger: TableStreamTrigger): Record<string, unknown> {
  return { dynamodb: { Keys: { pk: { S: [{ prefix: trigger.keyPrefix }] } } } };
}

/** One CloudWatch alarm on a stream-triggered function or its dead-letter queue. */
export interface AlarmDescription {
  /** After the function's capitalized name: `Events` + `DeadLetterAlarm`. */
  suffix: string;
  why: string;
  namespace: 'AWS/SQS' | 'AWS/Lambda';
  metric: string;
  /** Its dimension: the dead-letter queue's name, or the function's. */
  of: 'deadLetterQueue' | 'function';
  statistic: 'Maximum' | 'Sum';
  periodSeconds: number;
  evaluationPeriods: number;
  /** Fires when the statistic is greater than this. */
  threshold: number;
}

/** The alarms of a `tableStream` function: anything in its dead-letter queue, a failed invocation, a stream falling behind. */
export function streamAlarms(fn: FunctionDescription): AlarmDescription[] {
  if (fn.tableStream === undefined) return [];
  return [
    {
      suffix: 'DeadLetterAlarm',
      why: 'A batch of records went to the dead-letter queue: retries and the record age ran out. The events are still in their outboxes; `passlane events deliver` sends them (infra/README.md, "Account events").',
      namespace: 'AWS/SQS',
      metric: 'ApproximateNumberOfMessagesVisible',
      of: 'deadLetterQueue',
      statistic: 'Maximum',
      periodSeconds: 60,
      evaluationPeriods: 1,
      threshold: 0,
    },
    {
      suffix: 'ErrorsAlarm',
      why: 'An invocation failed as a whole (the handler threw: its dependencies, the table), not an account whose delivery is retried.',
      namespace: 'AWS/Lambda',
      metric: 'Errors',
      of: 'function',
      statistic: 'Sum',
      periodSeconds: 300,
      evaluationPeriods: 1,
      threshold: 0,
    },
    {
      suffix: 'IteratorAgeAlarm',
      why: 'The stream is read late: deliveries are being retried (a destination refuses or is down), or the function cannot keep up.',
      namespace: 'AWS/Lambda',
      metric: 'IteratorAge',
      of: 'function',
      statistic: 'Maximum',
      periodSeconds: 60,
      evaluationPeriods: 5,
      threshold: fn.tableStream.iteratorAgeAlarmMs,
    },
  ];
}

const literal = (value: string): EnvSource => ({ kind: 'literal', value });
const setting = (name: SettingName): EnvSource => ({ kind: 'setting', setting: name });
const table: EnvSource = { kind: 'table' };
const parameterName = (secret: SecretName): EnvSource => ({ kind: 'parameterName', secret, ...(SECRETS[secret].optional && { optional: true }) });

/** Every function gets these (serverless.yml: provider.environment). */
export const COMMON_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  POWERTOOLS_SERVICE_NAME: literal('passlane'),
  PASSLANE_JWT_ISSUER: setting('jwtIssuer'),
  PASSLANE_JWT_AUDIENCE: setting('jwtAudience'),
  // Public keys still accepted and published during a key rotation (packages/server/src/features/tokens/README.md).
  PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS: setting('jwtPreviousPublicKeys'),
  // Time one verify may take (packages/passlane/SECURITY.md): half the timeout. Memory comes from the
  // function's own size. Stored hashes that cannot fit are refused, not timed out on.
  PASSLANE_VERIFY_TIME_MS: literal('5000'),
  PASSLANE_SECRETS_REVISION: setting('secretsRevision'),
  PASSLANE_CORS_ORIGINS: setting('corsOrigins'),
  PASSLANE_OAUTH_CLIENT_ID: setting('oauthClientId'),
  PASSLANE_TOKEN_SCOPES: setting('tokenScopes'),
  PASSLANE_REQUIRED_SCOPE: setting('requiredScope'),
  PASSLANE_REQUIRE_MFA: setting('requireMfa'),
};

/**
 * A function's routes as the HTTP API gets them: its own, and `OPTIONS` on each of its paths, so
 * a browser's preflight reaches the function and is answered by the same CORS code as on every
 * other host (packages/server/src/api/cors.ts). The HTTP API gets no CORS configuration of its
 * own: API Gateway would then answer preflights itself and drop the functions' CORS headers,
 * the public keys' `Access-Control-Allow-Origin: *` among them (infra/README.md, "HTTP API").
 * IAM-authorized routes (the operator API) get none: see `routeAuthorization`.
 */
export function apiGatewayRoutes(fn: FunctionDescription): string[] {
  if (fn.routeAuthorization === 'iam') return [...fn.routes];
  const paths = [...new Set(fn.routes.map((route) => route.split(' ')[1]!))];
  return [...fn.routes, ...paths.map((path) => `OPTIONS ${path}`)];
}

/** Only for the functions that send mail (register, login, recovery). */
const MAIL_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  PASSLANE_MAIL_FROM: setting('mailFrom'),
  PASSLANE_APP_URL: setting('appUrl'),
  PASSLANE_SES_IDENTITY_ARN: setting('sesIdentity'),
  PASSLANE_SES_CONFIGURATION_SET: setting('sesConfigurationSet'),
  PASSLANE_EMAIL_VERIFICATION: setting('emailVerification'),
  PASSLANE_REQUIRE_VERIFIED_EMAIL: setting('requireVerifiedEmail'),
};

/** Where passwords are counted: login failures, registrations and changes per source and account. */
const RATE_LIMIT_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  PASSLANE_LOGIN_LIMIT_PER_IP: setting('loginLimitPerIp'),
  PASSLANE_LOGIN_LIMIT_WINDOW_S: setting('loginLimitWindowSeconds'),
  PASSLANE_PASSWORD_CHANGE_LIMIT_PER_ACCOUNT: setting('passwordChangeLimitPerAccount'),
  PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: setting('loginFailuresPerAccountSource'),
  PASSLANE_LOGIN_DELAY_BASE_S: setting('loginDelayBaseSeconds'),
  PASSLANE_LOGIN_DELAY_MAX_S: setting('loginDelayMaxSeconds'),
  PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING: setting('loginAccountFailureCeiling'),
  PASSLANE_LOGIN_ACCOUNT_LOCK_S: setting('loginAccountLockSeconds'),
  PASSLANE_LOGIN_FAILURE_FLOOR_MS: setting('loginFailureFloorMs'),
  PASSLANE_LOGIN_SUCCESS_LIMIT_PER_ACCOUNT: setting('loginSuccessLimitPerAccount'),
  PASSLANE_LOGIN_SUCCESS_LIMIT_PER_IP: setting('loginSuccessLimitPerIp'),
  PASSLANE_LOGIN_FAILURE_PAD_FACTOR: setting('loginFailurePadFactor'),
};

/** The functions that hash: the argon2 backend (auto, native or wasm). */
const HASHER_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  PASSLANE_ARGON2_BACKEND: setting('argon2Backend'),
};

/**
 * Lazy migration of accounts still in a legacy store (packages/server/src/features/migration/README.md): login asks it
 * about unknown emails, registration whether it holds an email.
 */
const MIGRATION_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  PASSLANE_MIGRATION_URL: setting('migrationUrl'),
  PASSLANE_MIGRATION_SECRET_PARAMETER: parameterName('migrationSecret'),
  PASSLANE_MIGRATION_FUNCTION: setting('migrationFunction'),
  PASSLANE_MIGRATION_TIMEOUT_MS: setting('migrationTimeoutMs'),
};

/** Where WebAuthn answers are checked: the passkey functions, and login's POST /login/mfa. */
const WEBAUTHN_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  PASSLANE_WEBAUTHN_RP_ID: setting('webauthnRpId'),
  PASSLANE_WEBAUTHN_ORIGINS: setting('webauthnOrigins'),
  PASSLANE_WEBAUTHN_RP_NAME: setting('webauthnRpName'),
};

/** Sign-in with providers: the federation function's. */
const FEDERATION_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  PASSLANE_OAUTH_PROVIDERS: setting('oauthProviders'),
  PASSLANE_PUBLIC_URL: setting('publicUrl'),
  PASSLANE_OAUTH_SECRETS_PARAMETER: parameterName('oauthSecrets'),
};

/** The functions whose use cases change an account: they record its events (PASSLANE_EVENTS). */
const EVENTS_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  PASSLANE_EVENTS: setting('events'),
};

/** The functions that start sessions (every way in): a login's `session.started` where sign-in events are on. */
const SIGN_IN_EVENTS_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  ...EVENTS_ENVIRONMENT,
  PASSLANE_EVENTS_SIGN_IN: setting('eventsSignIn'),
};

/**
 * The append of an account's events to its outbox, in the same TransactWriteItems as the change
 * (an UpdateItem with no condition on `outbox#<userId>`; packages/server/src/storage/event-outbox.ts).
 * Only ever used with the `events` setting on.
 */
const RECORD_EVENTS = (what: string): Grant => ({
  kind: 'items',
  action: 'dynamodb:UpdateItem',
  keys: ['outbox#*'],
  why: `With account events on (the events setting): ${what}, appended to the account's outbox in the same transaction as the change.`,
});
/** The token hook: where an access token is minted (login, refresh, passkey login, federation). */
const TOKEN_HOOK_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  PASSLANE_TOKEN_HOOK_URL: setting('tokenHookUrl'),
  PASSLANE_TOKEN_HOOK_SECRETS_PARAMETER: parameterName('tokenHookSecrets'),
  PASSLANE_TOKEN_HOOK_FUNCTION: setting('tokenHookFunction'),
  PASSLANE_TOKEN_HOOK_TIMEOUT_MS: setting('tokenHookTimeoutMs'),
  PASSLANE_TOKEN_HOOK_ON_FAILURE: setting('tokenHookOnFailure'),
};

/** The sign-up hook: where an account is created (registration, lazy migration at login, a first federated sign-in). */
const SIGNUP_HOOK_ENVIRONMENT: Readonly<Record<string, EnvSource>> = {
  PASSLANE_SIGNUP_HOOK_URL: setting('signupHookUrl'),
  PASSLANE_SIGNUP_HOOK_SECRETS_PARAMETER: parameterName('signupHookSecrets'),
  PASSLANE_SIGNUP_HOOK_FUNCTION: setting('signupHookFunction'),
  PASSLANE_SIGNUP_HOOK_TIMEOUT_MS: setting('signupHookTimeoutMs'),
};

const TOKEN_HOOK_GRANTS: Grant[] = [
  { kind: 'parameters', secrets: ['tokenHookSecrets'], why: 'With a token hook by URL: the secrets that sign its requests.' },
  { kind: 'invokeFunction', setting: 'tokenHookFunction', why: 'With a token hook that is a Lambda function: that function, and no other.' },
];

const SIGNUP_HOOK_GRANTS: Grant[] = [
  { kind: 'parameters', secrets: ['signupHookSecrets'], why: 'With a sign-up hook by URL: the secrets that sign its requests.' },
  { kind: 'invokeFunction', setting: 'signupHookFunction', why: 'With a sign-up hook that is a Lambda function: that function, and no other.' },
];

const MIGRATION_GRANTS = (when: string): Grant[] => [
  { kind: 'parameters', secrets: ['migrationSecret'], why: `With a migration by URL (${when}): the key that signs its requests.` },
  { kind: 'invokeFunction', setting: 'migrationFunction', why: 'With a migration through a Lambda function: that function, and no other.' },
];

const SEND_MAIL = (why: string): Grant => ({ kind: 'sendMail', why });
const HASHER_MEMORY = { setting: 'hasherMemorySize' } as const;

export const PASSLANE_FUNCTIONS: readonly FunctionDescription[] = [
  {
    name: 'register',
    entry: 'functions/register.ts',
    why: 'POST /register: a conditional create of the account.',
    memory: HASHER_MEMORY,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /register'],
    environment: {
      ...EVENTS_ENVIRONMENT,
      ...SIGNUP_HOOK_ENVIRONMENT,
      ...MAIL_ENVIRONMENT,
      ...RATE_LIMIT_ENVIRONMENT,
      ...HASHER_ENVIRONMENT,
      PASSLANE_TABLE: table,
      // No signing key: registration issues no token. The fingerprint key names the account's
      // mail budget and verification token.
      PASSLANE_PEPPER_KEYS_PARAMETER: parameterName('pepperKeys'),
      PASSLANE_FINGERPRINT_KEY_PARAMETER: parameterName('fingerprintKey'),
      ...MIGRATION_ENVIRONMENT,
    },
    grants: [
      {
        kind: 'items',
        action: 'dynamodb:PutItem',
        keys: ['user#*', 'token#verify#*'],
        why: 'New accounts (conditional create) and, with email verification on, the account\'s verification token. Never a reset token (token#reset#): that would reset passwords.',
      },
      { kind: 'items', action: 'dynamodb:UpdateItem', keys: ['ratelimit#*'], why: 'The per-IP registration counter and the account\'s mail budgets (atomic ADD).' },
      {
        kind: 'parameters',
        secrets: ['pepperKeys', 'fingerprintKey'],
        why: 'The pepper and the fingerprint key (mail budgets and tokens are keyed by it); registration issues no token, so no signing key.',
      },
      SEND_MAIL('The verification mail, or "someone tried to register with your address".'),
      ...MIGRATION_GRANTS('an email the legacy store still holds is taken'),
      RECORD_EVENTS('`user.registered`'),
      ...SIGNUP_HOOK_GRANTS,
    ],
  },
  {
    name: 'login',
    entry: 'functions/login.ts',
    why: 'POST /login and /login/mfa: verify, count failures, start a session (after a second factor where the account has one).',
    memory: HASHER_MEMORY,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /login', 'POST /login/mfa'],
    environment: {
      ...SIGN_IN_EVENTS_ENVIRONMENT,
      ...TOKEN_HOOK_ENVIRONMENT,
      // Lazy migration creates accounts.
      ...SIGNUP_HOOK_ENVIRONMENT,
      // Mail: a new verification link when an unverified account logs in (requireVerifiedEmail).
      ...MAIL_ENVIRONMENT,
      ...RATE_LIMIT_ENVIRONMENT,
      ...HASHER_ENVIRONMENT,
      PASSLANE_TABLE: table,
      PASSLANE_PEPPER_KEYS_PARAMETER: parameterName('pepperKeys'),
      PASSLANE_JWT_PRIVATE_KEY_PARAMETER: parameterName('jwtPrivateKey'),
      PASSLANE_FINGERPRINT_KEY_PARAMETER: parameterName('fingerprintKey'),
      // Opens TOTP secrets at POST /login/mfa.
      PASSLANE_MFA_KEYS_PARAMETER: parameterName('mfaKeys'),
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
      // An account's passkeys offered at the MFA step, and their assertions checked at POST /login/mfa.
      ...WEBAUTHN_ENVIRONMENT,
      ...MIGRATION_ENVIRONMENT,
    },
    grants: [
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['mfalogin#*'],
        why: 'At POST /login/mfa, the MFA token\'s item (consistent read).',
      },
      {
        kind: 'items',
        action: 'dynamodb:BatchGetItem',
        keys: ['user#*', 'failures#*', 'sessions#*', 'mfa#*', 'migration#*'],
        why: 'The account, its failure counters, its sessions and its second factors, in one BatchGetItem before the verify (packages/server/src/features/login/LIMITS.md); with lazy migration, its breaker (migration#breaker, at most once a second). The breaker\'s grants are there without a migration too: one item of no account\'s data.',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['failures#*', 'user#*', 'sessions#*', 'ratelimit#*', 'migration#*', 'mfa#*', 'mfalogin#*'],
        why: 'A TOTP step accepted (conditional on it being later than the last) or a recovery code spent (conditional delete from its set), an MFA token\'s and a factor\'s count of codes (conditional ADD, before the code is checked); each attempt reserved on its failure counters before the verify (conditional writes; a known device\'s in the sessions item) and given back after a success, the source\'s count of good logins, the upgrade of an outdated hash after a good login (conditional on the hash just verified), the new session with its known device and the account\'s count of good logins (conditional on the sessions item\'s version; ends the oldest beyond the limit), and the account\'s verification-mail budget (requireVerifiedEmail); with lazy migration, its breaker opened when the old system gives no answer.',
      },
      {
        kind: 'items',
        action: 'dynamodb:DeleteItem',
        keys: ['failures#*', 'migration#*', 'mfalogin#*'],
        why: 'A good login ends the failures it follows (conditional delete); the old system\'s next answer closes its breaker; an MFA token is spent (conditional delete), or voided when expired, stale or at its 5th wrong code.',
      },
      {
        kind: 'items',
        action: 'dynamodb:PutItem',
        keys: ['token#verify#*', 'user#*', 'mfalogin#*'],
        why: 'A right password on an account with a second factor: its MFA token (mfalogin#, keyed by the token\'s hash). requireVerifiedEmail: a correct login on an unverified account gets a new verification token (never a reset token) and its mail. With lazy migration: the migrated account, created on the condition that the email is free (as registration does).',
      },
      SEND_MAIL('The new verification link (requireVerifiedEmail); "a recovery code was used".'),
      { kind: 'parameters', secrets: ['pepperKeys', 'jwtPrivateKey', 'fingerprintKey', 'mfaKeys'], why: 'The pepper, the signing key, the fingerprint key and the keys that open TOTP secrets.' },
      ...MIGRATION_GRANTS('an unknown email is asked about'),
      RECORD_EVENTS('a migrated account\'s `user.registered` (lazy migration); with sign-in events on (eventsSignIn), each new session\'s `session.started`'),
      ...TOKEN_HOOK_GRANTS,
      ...SIGNUP_HOOK_GRANTS,
    ],
  },
  {
    name: 'token',
    entry: 'functions/token.ts',
    why: 'POST /token: rotate a refresh token.',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /token'],
    environment: {
      ...TOKEN_HOOK_ENVIRONMENT,
      ...RATE_LIMIT_ENVIRONMENT,
      PASSLANE_TABLE: table,
      PASSLANE_JWT_PRIVATE_KEY_PARAMETER: parameterName('jwtPrivateKey'),
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
    },
    grants: [
      {
        kind: 'items',
        action: 'dynamodb:BatchGetItem',
        keys: ['sessions#*', 'failures#refresh#*'],
        why: 'The refresh token\'s sessions item and this source\'s failed refreshes, in one consistent BatchGetItem (packages/server/src/features/sessions/refresh-session.ts).',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['sessions#*', 'failures#refresh#*'],
        why: 'The rotation (conditional on the session\'s generation), the end of a session whose spent token came back, and one failed refresh more (atomic ADD). No account, no login counter: a refresh never touches them.',
      },
      { kind: 'parameters', secrets: ['jwtPrivateKey'], why: 'The signing key only: no pepper, no fingerprint key (the refresh token names its item).' },
      ...TOKEN_HOOK_GRANTS,
    ],
  },
  {
    name: 'account',
    entry: 'functions/account.ts',
    why: 'DELETE /account: the owner erases the account and every item of it, behind a recent login (with a factor where there is one).',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['DELETE /account'],
    environment: {
      ...EVENTS_ENVIRONMENT,
      ...MAIL_ENVIRONMENT,
      PASSLANE_TABLE: table,
      // Public keys only: it verifies the caller's token and issues none. The fingerprint key
      // names the account's other items (sessions, factors, one-time tokens).
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
      PASSLANE_FINGERPRINT_KEY_PARAMETER: parameterName('fingerprintKey'),
    },
    grants: [
      { kind: 'index', action: 'dynamodb:Query', index: TABLE_INDEX, why: 'The token\'s userId -> the account key, through the keys-only index.' },
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['sessions#*', 'mfa#*', 'user#*', 'identities#*'],
        why: 'The access token\'s sessions item (is its session live, its login recent), the account\'s factors (did the login use one; the passkeys whose lookups go), the account (after the index), its identities at providers (whose lookups go).',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['user#*', 'sessions#*'],
        why: 'The account marked disabled while it is erased (conditional on its userId); every session and device ended, the sessions item emptied and given a near TTL (a purge, conditional on the epoch).',
      },
      {
        kind: 'items',
        action: 'dynamodb:DeleteItem',
        keys: ['user#*', 'mfa#*', 'passkey#*', 'identity#*', 'identities#*', 'token#reset#*', 'token#verify#*', 'token#email-change#*'],
        why: 'The account (conditional on its userId), its factors (conditional on their account), its passkeys\' and identities\' lookups and its list of identities (conditional on the account), its outstanding reset, verification and email-change links.',
      },
      { kind: 'parameters', secrets: ['fingerprintKey'], why: 'The fingerprint key: the account\'s sessions, factors and links are keyed by it. No pepper, signing key or TOTP key.' },
      SEND_MAIL('The mail confirming the deletion to the address.'),
      RECORD_EVENTS('`account.deleted`'),
    ],
  },
  {
    name: 'sessions',
    entry: 'functions/sessions.ts',
    why: 'POST /logout, GET /sessions, DELETE /sessions/{id} and /devices/{id}: verify with the public keys, read and end sessions, forget known devices.',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /logout', 'GET /sessions', 'DELETE /sessions/{id}', 'DELETE /devices/{id}'],
    environment: {
      PASSLANE_TABLE: table,
      // Public keys only: these routes verify access tokens and never issue one.
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
    },
    grants: [
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['sessions#*'],
        why: 'The access token\'s sessions item (consistent read): is its session live, and what to list.',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['sessions#*'],
        why: 'Logout and DELETE /sessions/{id}: sessions removed from that item; DELETE /devices/{id} and a global logout: known devices removed from it. No parameter: it verifies tokens with the public keys in its environment.',
      },
    ],
  },
  {
    name: 'mfa',
    entry: 'functions/mfa.ts',
    why: 'POST /mfa/totp, /mfa/totp/confirm, /mfa/recovery-codes and DELETE /mfa/totp: the account\'s TOTP, behind a recent login.',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /mfa/totp', 'POST /mfa/totp/confirm', 'POST /mfa/recovery-codes', 'DELETE /mfa/totp'],
    environment: {
      ...EVENTS_ENVIRONMENT,
      ...MAIL_ENVIRONMENT,
      PASSLANE_TABLE: table,
      // Public keys only: these routes verify access tokens and never issue one.
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
      PASSLANE_MFA_KEYS_PARAMETER: parameterName('mfaKeys'),
      PASSLANE_MFA_ISSUER: setting('mfaIssuer'),
    },
    grants: [
      { kind: 'index', action: 'dynamodb:Query', index: TABLE_INDEX, why: 'The token\'s userId -> the account key, through the keys-only index: the email the otpauth URI and the mails name.' },
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['sessions#*', 'mfa#*', 'user#*'],
        why: 'The access token\'s sessions item (is its session live, and its login recent), the account\'s factors, the account (after the index) for its email.',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['mfa#*'],
        why: 'The factors item: a pending secret (never over an active one; for a password-only login, never over any factor), its activation (conditional on the secret confirmed), the recovery codes replaced or one spent, a TOTP step accepted, the removal (conditional on the secret checked). No account or login counter.',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['sessions#*'],
        why: 'TOTP turned on: the account\'s password-only sessions end but the enabling one (a purge, conditional on the epoch and the kept sessions\' generations).',
      },
      { kind: 'items', action: 'dynamodb:PutItem', keys: ['token#undo#*'], why: 'The "this wasn\'t me" link of TOTP turned on (one item per link, 7 days). Never a reset or verification token.' },
      { kind: 'items', action: 'dynamodb:UpdateItem', keys: ['ratelimit#*'], why: 'Attempts at DELETE /mfa/totp, counted per account (atomic ADD): a stolen session cannot guess its way to a removal.' },
      { kind: 'parameters', secrets: ['mfaKeys'], why: 'The keys that seal and open TOTP secrets; no pepper, signing key or fingerprint key.' },
      SEND_MAIL('The owner hears of every change: TOTP enabled (with its undo link) or removed, recovery codes regenerated.'),
      RECORD_EVENTS('`factor.added` and `factor.removed` (TOTP)'),
    ],
  },
  {
    name: 'passkeys',
    entry: 'functions/passkeys.ts',
    why: 'POST /passkeys/registration/options, POST /passkeys/registration, GET /passkeys, PATCH and DELETE /passkeys/{id}: the account\'s passkeys, registered behind a recent login.',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /passkeys/registration/options', 'POST /passkeys/registration', 'GET /passkeys', 'PATCH /passkeys/{id}', 'DELETE /passkeys/{id}'],
    environment: {
      ...EVENTS_ENVIRONMENT,
      ...MAIL_ENVIRONMENT,
      ...WEBAUTHN_ENVIRONMENT,
      PASSLANE_TABLE: table,
      // Public keys only: these routes verify access tokens and never issue one. No secret at all:
      // passkeys are public keys, and recovery codes are stored hashed, not sealed.
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
    },
    grants: [
      { kind: 'index', action: 'dynamodb:Query', index: TABLE_INDEX, why: 'The token\'s userId -> the account key, through the keys-only index: the email the authenticator lists the passkey under and the mails name.' },
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['sessions#*', 'mfa#*', 'user#*'],
        why: 'The access token\'s sessions item (is its session live, its login recent, with a second factor), the account\'s factors (its passkeys), the account (after the index) for its email.',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['mfa#*'],
        why: 'The factors item: a passkey added (conditional on it being new and below the limit; the first factor with its recovery codes, conditional on there being no factor), renamed or removed (conditional on it being there; the last factor takes the recovery codes). No account or login counter.',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['sessions#*'],
        why: 'A passkey registered: the account\'s password-only sessions end but the registering one (a purge, conditional on the epoch and the kept sessions\' generations).',
      },
      {
        kind: 'items',
        action: 'dynamodb:PutItem',
        keys: ['passkey#*', 'webauthn#*', 'token#undo#*'],
        why: 'A registration\'s challenge (webauthn#, keyed by its hash, 5 minutes), the credential\'s lookup item (passkey#, conditional on the credential being registered nowhere) and the registration\'s "this wasn\'t me" link (token#undo#, 7 days).',
      },
      {
        kind: 'items',
        action: 'dynamodb:DeleteItem',
        keys: ['passkey#*', 'webauthn#*'],
        why: 'A challenge spent (conditional delete: one answer per challenge); a removed passkey\'s lookup, or a failed registration\'s (conditional on the account).',
      },
      SEND_MAIL('The owner hears of every change: a passkey added (with its undo link) or removed.'),
      RECORD_EVENTS('`factor.added` and `factor.removed` (a passkey)'),
    ],
  },
  {
    name: 'factorUndo',
    entry: 'functions/factor-undo.ts',
    why: 'POST /mfa/undo: the "this wasn\'t me" link of a factor\'s mail removes that factor, ends every session and device, and makes the password unusable until a reset (packages/server/src/features/mfa/README.md).',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /mfa/undo'],
    environment: {
      ...EVENTS_ENVIRONMENT,
      ...MAIL_ENVIRONMENT,
      PASSLANE_TABLE: table,
    },
    grants: [
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['token#undo#*', 'mfa#*', 'user#*', 'sessions#*'],
        why: 'The link\'s item (consistent read), the factors (is the factor still there), the account (its hash, for the compare-and-swap), its sessions (before the purge).',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['mfa#*', 'user#*', 'sessions#*'],
        why: 'The factor removed (conditional on it being the one mailed about), the password hash replaced by one no password verifies (compare-and-swap), every session and device ended (a purge, conditional on the epoch).',
      },
      {
        kind: 'items',
        action: 'dynamodb:DeleteItem',
        keys: ['token#undo#*', 'passkey#*'],
        why: 'The link used (conditional delete: once), a removed passkey\'s lookup (conditional on the account).',
      },
      { kind: 'items', action: 'dynamodb:PutItem', keys: ['token#reset#*'], why: 'The reset link mailed now, replacing the outstanding one: the password works again only after a reset.' },
      SEND_MAIL('The reset link.'),
      RECORD_EVENTS('`factor.removed` and `password.changed` (the password locked)'),
    ],
  },
  {
    name: 'passkeyLogin',
    entry: 'functions/passkey-login.ts',
    why: 'POST /passkey/login/options and /passkey/login: a login without a password, with a discoverable passkey; no hasher.',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /passkey/login/options', 'POST /passkey/login'],
    environment: {
      ...SIGN_IN_EVENTS_ENVIRONMENT,
      ...TOKEN_HOOK_ENVIRONMENT,
      // Mail: a new verification link when an unverified account logs in (requireVerifiedEmail).
      ...MAIL_ENVIRONMENT,
      ...RATE_LIMIT_ENVIRONMENT,
      ...WEBAUTHN_ENVIRONMENT,
      PASSLANE_TABLE: table,
      PASSLANE_JWT_PRIVATE_KEY_PARAMETER: parameterName('jwtPrivateKey'),
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
    },
    grants: [
      { kind: 'items', action: 'dynamodb:GetItem', keys: ['passkey#*'], why: 'The credential\'s lookup item (consistent read): which account it names.' },
      {
        kind: 'items',
        action: 'dynamodb:BatchGetItem',
        keys: ['user#*', 'failures#*', 'sessions#*', 'mfa#*'],
        why: 'The account, its failure counters, its sessions and its factors (the passkey) in one BatchGetItem, as at POST /login; no migration breaker: a passkey names an account passlane holds.',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['failures#*', 'sessions#*', 'ratelimit#*', 'mfa#*'],
        why: 'The passkey\'s counter and last use (conditional on the counter read: of two uses of one assertion one wins); each attempt reserved before anything is checked on the failure counters (a known device\'s in the sessions item) and the passkeys\' count of wrong assertions, given back after a success; the options\' per-source limit, the source\'s count of good logins and the verification-mail budget (requireVerifiedEmail); the new session (conditional on the sessions item\'s version).',
      },
      { kind: 'items', action: 'dynamodb:PutItem', keys: ['webauthn#*', 'token#verify#*'], why: 'A login\'s challenge (webauthn#, keyed by its hash, 5 minutes); requireVerifiedEmail: a new verification token (never a reset token).' },
      { kind: 'items', action: 'dynamodb:DeleteItem', keys: ['webauthn#*', 'failures#*'], why: 'A challenge spent (conditional delete: one login per challenge); a good login ends the failures it follows (conditional delete).' },
      SEND_MAIL('The new verification link (requireVerifiedEmail).'),
      { kind: 'parameters', secrets: ['jwtPrivateKey'], why: 'The signing key alone: no pepper (no password is verified), no fingerprint key (the credential\'s lookup names the account\'s key, which the failure counters use) and no MFA keys (no TOTP secret is opened).' },
      RECORD_EVENTS('with sign-in events on too (eventsSignIn), each new session\'s `session.started`'),
      ...TOKEN_HOOK_GRANTS,
    ],
  },
  {
    name: 'federation',
    entry: 'functions/federation.ts',
    why: 'Sign-in with providers: GET /oauth/{provider}/start, the callback (GET, and POST for form_post), POST /oauth/token, and the account\'s identities. Its own function: no hasher (no password is verified), and the only one that calls the providers.',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: [
      'GET /oauth/{provider}/start',
      'GET /oauth/{provider}/callback',
      'POST /oauth/{provider}/callback',
      'POST /oauth/token',
      'GET /identities',
      'DELETE /identities/{id}',
      'POST /identities/link',
    ],
    environment: {
      ...SIGN_IN_EVENTS_ENVIRONMENT,
      ...TOKEN_HOOK_ENVIRONMENT,
      // A first sign-in creates its account.
      ...SIGNUP_HOOK_ENVIRONMENT,
      // Mail: a new verification link when an unverified account logs in (requireVerifiedEmail).
      ...MAIL_ENVIRONMENT,
      ...RATE_LIMIT_ENVIRONMENT,
      // An account's passkeys offered at the second-factor step (finished at POST /login/mfa).
      ...WEBAUTHN_ENVIRONMENT,
      ...FEDERATION_ENVIRONMENT,
      PASSLANE_TABLE: table,
      PASSLANE_JWT_PRIVATE_KEY_PARAMETER: parameterName('jwtPrivateKey'),
      PASSLANE_FINGERPRINT_KEY_PARAMETER: parameterName('fingerprintKey'),
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
    },
    grants: [
      { kind: 'index', action: 'dynamodb:Query', index: TABLE_INDEX, why: 'The identity routes: the access token\'s userId -> the account key, through the keys-only index.' },
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['identity#*', 'identities#*', 'user#*', 'sessions#*', 'mfa#*'],
        why: 'An identity\'s item (which account), the account\'s list of identities, the account (by its email\'s key, or after the index), the access token\'s sessions item, the account\'s factors (a second factor due; the last way in).',
      },
      {
        kind: 'items',
        action: 'dynamodb:BatchGetItem',
        keys: ['user#*', 'failures#*', 'sessions#*', 'mfa#*'],
        why: 'The login\'s shared step: the account, its failure counters, its sessions and its second factors in one read, as at POST /login.',
      },
      {
        kind: 'items',
        action: 'dynamodb:PutItem',
        keys: ['oauth#*', 'identity#*', 'user#*', 'mfalogin#*', 'token#verify#*'],
        why: 'A sign-in\'s state (oauth#, keyed by its secret\'s hash, 10 minutes), its app code and pending link (oauth#, 60 s and 10 minutes); an identity claimed (conditional on it being new: one identity, one account); a first sign-in\'s account (conditional on the email being free); an MFA token (a second factor due); requireVerifiedEmail: a new verification token (never a reset token).',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['identities#*', 'failures#*', 'sessions#*', 'ratelimit#*'],
        why: 'The account\'s list of identities (an identity recorded or removed, conditional on the account and, for a removal, on another way in); each attempt reserved on its failure counters and given back after a success, the source\'s count of good logins, the new session (conditional on the sessions item\'s version), the verification-mail budget.',
      },
      {
        kind: 'items',
        action: 'dynamodb:DeleteItem',
        keys: ['oauth#*', 'identity#*', 'failures#*'],
        why: 'A state, app code or pending link spent (conditional delete: once); an identity released (a removal, or a first sign-in that lost its account\'s race); a good login ends the failures it follows.',
      },
      SEND_MAIL('The new verification link (requireVerifiedEmail).'),
      { kind: 'parameters', secrets: ['jwtPrivateKey', 'fingerprintKey'], why: 'The signing key (a federated login\'s tokens) and the fingerprint key (a provider\'s email meets the accounts by it). No pepper, no MFA keys.' },
      { kind: 'parameters', secrets: ['oauthSecrets'], why: 'With providers that have secrets: their client secrets and Apple\'s key.' },
      RECORD_EVENTS('a first sign-in\'s `user.registered`, `identity.linked` and `identity.unlinked`; with sign-in events on (eventsSignIn), each new session\'s `session.started`'),
      ...TOKEN_HOOK_GRANTS,
      ...SIGNUP_HOOK_GRANTS,
    ],
  },
  {
    name: 'password',
    entry: 'functions/password.ts',
    why: 'POST /password: change the password with the current one.',
    memory: HASHER_MEMORY,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /password'],
    environment: {
      ...EVENTS_ENVIRONMENT,
      ...RATE_LIMIT_ENVIRONMENT,
      ...HASHER_ENVIRONMENT,
      PASSLANE_TABLE: table,
      PASSLANE_PEPPER_KEYS_PARAMETER: parameterName('pepperKeys'),
      PASSLANE_FINGERPRINT_KEY_PARAMETER: parameterName('fingerprintKey'),
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
    },
    grants: [
      { kind: 'index', action: 'dynamodb:Query', index: TABLE_INDEX, why: 'The token\'s userId -> the account key, through the keys-only index.' },
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['user#*', 'sessions#*'],
        why: 'Read the account (after the index); the access token\'s sessions item (consistent read: is its session live), and again after a change, before the purge.',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['ratelimit#*', 'user#*', 'sessions#*'],
        why: 'The attempt counters (atomic ADD), the compare-and-swap of the hash, and the end of every other session (conditional on the sessions item\'s version).',
      },
      {
        kind: 'items',
        action: 'dynamodb:DeleteItem',
        keys: ['failures#acct#*', 'token#*'],
        why: 'A new password ends the account\'s run of failed logins and voids its outstanding reset and verification tokens. It never writes one (no PutItem).',
      },
      {
        kind: 'parameters',
        secrets: ['pepperKeys', 'fingerprintKey'],
        why: 'The pepper (the new hash) and the fingerprint key. No signing key: it verifies the caller\'s access token with the public keys in its environment.',
      },
      RECORD_EVENTS('`password.changed`'),
    ],
  },
  {
    name: 'recovery',
    entry: 'functions/recovery.ts',
    why: 'Password reset, email verification and device approval: one-time links by mail (packages/server/src/features/recovery/README.md, packages/server/src/features/device-approval/README.md).',
    memory: HASHER_MEMORY,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /password/reset', 'POST /password/reset/confirm', 'POST /email/verify', 'POST /email/verify/resend', 'POST /devices/approval', 'POST /devices/approval/confirm'],
    environment: {
      ...EVENTS_ENVIRONMENT,
      ...MAIL_ENVIRONMENT,
      ...RATE_LIMIT_ENVIRONMENT,
      ...HASHER_ENVIRONMENT,
      PASSLANE_TABLE: table,
      PASSLANE_PEPPER_KEYS_PARAMETER: parameterName('pepperKeys'),
      PASSLANE_FINGERPRINT_KEY_PARAMETER: parameterName('fingerprintKey'),
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
    },
    grants: [
      { kind: 'index', action: 'dynamodb:Query', index: TABLE_INDEX, why: 'Resend: the access token\'s userId -> the account key, through the keys-only index.' },
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['user#*', 'token#*', 'sessions#*'],
        why: 'The account (reset request, confirm, verify, resend, device approval request), the presented token\'s item (consistent read; a device approval\'s, token#device#), the account\'s sessions (before the purge or the marking; its epoch when a device approval is asked for, and before the device is added).',
      },
      {
        kind: 'items',
        action: 'dynamodb:PutItem',
        keys: ['token#*'],
        why: 'A new reset or verification token, replacing the outstanding one; a device approval (token#device#, keyed by its link\'s hash, for known and unknown emails alike).',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['ratelimit#*', 'token#*', 'user#*', 'sessions#*', 'mfa#*'],
        why: 'Mail budgets and the per-source limits (atomic ADD); every presented secret counted against the outstanding token before it is compared (conditional ADD), another client against a device approval; a reset (the mailbox as proof) ends the second factors\' counts of wrong attempts; the new hash (compare-and-swap) and the verified email; every session ended by a reset (conditional on the epoch), or marked verified; an approved device added to the sessions item (conditional on the epoch the approval was asked under).',
      },
      {
        kind: 'items',
        action: 'dynamodb:DeleteItem',
        keys: ['token#*', 'failures#acct#*'],
        why: 'A token used (conditional on its hash: of two racing confirms one wins; a device approval conditional on it still being there) or voided (too many wrong secrets or other clients; a reset voids every outstanding one of the account); a reset ends the account\'s run of failed logins.',
      },
      SEND_MAIL('The reset, verification and device approval links.'),
      {
        kind: 'parameters',
        secrets: ['pepperKeys', 'fingerprintKey'],
        why: 'The pepper (the new hash) and the fingerprint key (token and counter keys). No signing key: resend verifies access tokens with the public keys in its environment.',
      },
      RECORD_EVENTS('`password.reset` and `email.verified`'),
    ],
  },
  {
    name: 'emailChange',
    entry: 'functions/email-change.ts',
    why: 'POST /email/change, /email/change/confirm and /email/change/undo: an account moved to a new address by a link mailed there, and back by the old address\'s undo link (packages/server/src/features/email-change/README.md).',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['POST /email/change', 'POST /email/change/confirm', 'POST /email/change/undo'],
    environment: {
      ...EVENTS_ENVIRONMENT,
      ...MAIL_ENVIRONMENT,
      PASSLANE_TABLE: table,
      // The new address's keys (its item, mail budget, factors) are its fingerprint. No pepper, no
      // signing key, no TOTP key: nothing is hashed, signed or opened (factors are moved sealed).
      PASSLANE_FINGERPRINT_KEY_PARAMETER: parameterName('fingerprintKey'),
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
    },
    grants: [
      { kind: 'index', action: 'dynamodb:Query', index: TABLE_INDEX, why: 'The access token\'s (or the undo link\'s) userId -> the account\'s address, through the keys-only index.' },
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['user#*', 'sessions#*', 'mfa#*', 'passkey#*', 'identities#*', 'token#*'],
        why: 'The access token\'s sessions item (live, a recent login, with a factor where there is one); the account at the old and the new address, its factors at both keys and its passkeys\' lookups and its identities\' list, read before the switch; the presented link\'s item (consistent read).',
      },
      {
        kind: 'items',
        action: 'dynamodb:PutItem',
        keys: ['user#*', 'mfa#*', 'token#email-change#*', 'token#email-undo#*', 'token#reset#*'],
        why: 'The account at its new address and its factors at the new key (each conditional on nothing being there); the change\'s link (one per account), the old address\'s undo link, and after an undo the reset link. Never a verification token.',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['ratelimit#*', 'token#email-change#*', 'passkey#*', 'identity#*', 'identities#*', 'sessions#*', 'user#*'],
        why: 'The new mailbox\'s and the account\'s mail budgets (atomic ADD); a presented secret counted against the outstanding link (conditional ADD); the passkeys\' and identities\' lookups carried to the new key (conditional on the account), the identities\' list written there; every session ended at the switch (conditional on the epoch); the password locked by an undo (compare-and-swap), or the account disabled when its old address was taken meanwhile.',
      },
      {
        kind: 'items',
        action: 'dynamodb:DeleteItem',
        keys: ['user#*', 'mfa#*', 'identities#*', 'token#*'],
        why: 'The account and its factors at the old key (conditional on them being unchanged since read), its identities\' list there (conditional on the account); a link used (conditional) and the account\'s other one-time links voided at the switch.',
      },
      SEND_MAIL('The link to the new address, a notice to a taken one, the old address\'s notice with its undo link, the reset link after an undo.'),
      { kind: 'parameters', secrets: ['fingerprintKey'], why: 'The fingerprint key (the new address\'s keys). No pepper or signing key: the caller\'s access token is verified with the public keys in its environment.' },
      RECORD_EVENTS('`email.changed`, and after an undo `password.changed` (locked) or `account.disabled`'),
    ],
  },
  {
    name: 'admin',
    entry: 'functions/admin.ts',
    why: 'The operator API (/admin/users...): find, show and list accounts, disable and enable, end sessions, remove a factor, send a reset mail, delete. Behind API Gateway\'s AWS_IAM authorization: only requests an IAM principal signed, and allowed to invoke, reach it; that principal is the operator its audit events and the owner\'s mails name (packages/server/src/features/operators).',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: [
      'GET /admin/users',
      'GET /admin/users/{id}',
      'POST /admin/users/{id}/disable',
      'POST /admin/users/{id}/enable',
      'POST /admin/users/{id}/end-sessions',
      'POST /admin/users/{id}/send-reset',
      'DELETE /admin/users/{id}/factors/{factor}',
      'DELETE /admin/users/{id}/passkeys/{credentialId}',
      'DELETE /admin/users/{id}',
    ],
    routeAuthorization: 'iam',
    environment: {
      ...EVENTS_ENVIRONMENT,
      ...MAIL_ENVIRONMENT,
      PASSLANE_TABLE: table,
      // Keys the account's sessions, factors, links and mail budgets: no pepper, no signing key (nothing here hashes or issues a token).
      PASSLANE_FINGERPRINT_KEY_PARAMETER: parameterName('fingerprintKey'),
    },
    grants: [
      { kind: 'index', action: 'dynamodb:Query', index: TABLE_INDEX, why: 'An operator names an account by its userId: the userId -> the account key, through the keys-only index.' },
      {
        kind: 'scan',
        why: 'GET /admin/users without an address: a page of accounts. A Scan has no partition key, so no LeadingKeys condition can narrow it: it may read the whole table (the code\'s filter and projection keep accounts, never a hash).',
      },
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['user#*', 'sessions#*', 'mfa#*', 'identities#*'],
        why: 'The account (by address, or after the index), its sessions item (to show, and before each purge), its factors (to show, and to remove one conditionally) and its identities at providers (a deletion erases them).',
      },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['user#*', 'sessions#*', 'mfa#*'],
        why: 'Disabled and enabled (conditional on the account); every session and device ended (a purge conditional on the epoch, marking the item disabled while a deletion runs); a factor removed (conditional on it being the one read).',
      },
      {
        kind: 'items',
        action: 'dynamodb:DeleteItem',
        keys: ['user#*', 'mfa#*', 'passkey#*', 'identity#*', 'identities#*', 'token#*'],
        why: 'A deletion: the account (conditional on it being this account), its factors, its passkeys\' and identities\' lookups and its list of identities (conditional on the account), its outstanding links; a removed passkey\'s lookup.',
      },
      { kind: 'items', action: 'dynamodb:PutItem', keys: ['token#reset#*'], why: 'The reset link an operator sends, replacing the outstanding one. No other token: an operator never holds a link.' },
      SEND_MAIL('The owner hears of every change to their access (disabled, enabled, sessions ended, a factor removed, deleted) and gets the reset link.'),
      { kind: 'parameters', secrets: ['fingerprintKey'], why: 'The fingerprint key alone: the account key of an address.' },
      RECORD_EVENTS('`account.disabled`, `account.enabled`, `factor.removed` and `account.deleted`, naming the operator'),
    ],
  },
  {
    name: 'jwks',
    entry: 'functions/jwks.ts',
    why: 'GET /.well-known/jwks.json: publishes PASSLANE_JWT_PUBLIC_KEYS (plain env), no secret, no table.',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['GET /.well-known/jwks.json'],
    environment: {
      // Public keys only: this function can neither read nor use the private key.
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
    },
    grants: [],
  },
  {
    name: 'openidConfiguration',
    entry: 'functions/openid-configuration.ts',
    why: 'GET /.well-known/openid-configuration and /.well-known/oauth-authorization-server (RFC 8414): the discovery document, from plain env.',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: ['GET /.well-known/openid-configuration', 'GET /.well-known/oauth-authorization-server'],
    environment: {
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
    },
    grants: [],
  },
  {
    name: 'authorizer',
    entry: 'functions/authorizer.ts',
    why: 'No route: API Gateway invokes it for routes that name the passlaneSession authorizer (another API needs its own invoke permission).',
    memory: DEFAULT_MEMORY_MB,
    timeout: DEFAULT_TIMEOUT_S,
    routes: [],
    environment: {
      PASSLANE_TABLE: table,
      // Public keys only: it verifies tokens and can neither read nor use the private key.
      PASSLANE_JWT_PUBLIC_KEYS: setting('jwtPublicKeys'),
      // How long a container trusts what it read about a session (0 to 60 s; 0: every request reads).
      PASSLANE_AUTHORIZER_CACHE_S: setting('authorizerCacheSeconds'),
    },
    grants: [
      {
        kind: 'items',
        action: 'dynamodb:GetItem',
        keys: ['sessions#*'],
        why: 'Is the token\'s session live: one consistent read of its sessions item. Nothing else: tokens are verified with PASSLANE_JWT_PUBLIC_KEYS (plain env), no secret.',
      },
    ],
  },
  {
    name: 'rehash',
    entry: 'functions/rehash.ts',
    why: 'No route: invoked by a schedule or Step Functions with { cursor?, dryRun?, segments? }.',
    memory: HASHER_MEMORY,
    timeout: 900,
    // One run at a time: overlapping runs would fight over the stored cursor (the second one stops
    // with ERR_STORAGE_CURSOR_CHANGED), so a schedule or a retry never starts a second.
    reservedConcurrency: 1,
    routes: [],
    environment: {
      ...HASHER_ENVIRONMENT,
      PASSLANE_TABLE: table,
      PASSLANE_PEPPER_KEYS_PARAMETER: parameterName('pepperKeys'),
    },
    grants: [
      {
        kind: 'scan',
        why: 'Walk every account. A Scan has no partition key, so no LeadingKeys condition can narrow it: it may read the whole table (the code\'s filter keeps only accounts).',
      },
      { kind: 'items', action: 'dynamodb:UpdateItem', keys: ['user#*'], why: 'Upgrade hashes in place, conditional on the old hash.' },
      { kind: 'items', action: 'dynamodb:GetItem', keys: ['job#rehash'], exact: true, why: 'Its cursor. (A lost condition hands back the stored item: no read of accounts.)' },
      { kind: 'items', action: 'dynamodb:PutItem', keys: ['job#rehash'], exact: true, why: 'Its resumable cursor, a single item: job#rehash (packages/server/src/features/rehash/run-rehash-job.ts).' },
      { kind: 'parameters', secrets: ['pepperKeys'], why: 'The pepper, to re-seal records under the current key; no signing key.' },
    ],
  },
  {
    name: 'events',
    entry: 'functions/events.ts',
    why: 'No route: the table\'s stream rings it when an account\'s outbox (outbox#) is written; it delivers that account\'s events, in order, to the EventBridge bus and the webhooks the deployment names (packages/server/src/features/events). Failed batches are retried, then described in its dead-letter queue, with alarms.',
    memory: DEFAULT_MEMORY_MB,
    // Room for a batch of accounts whose destinations are slow (each webhook has its timeout);
    // the handler starts no delivery that its time left could not see through.
    timeout: 120,
    routes: [],
    environment: {
      PASSLANE_TABLE: table,
      PASSLANE_EVENT_BUS: setting('eventBus'),
      // The webhooks' JSON whole, URLs with the secrets: a URL may carry a token of its own.
      PASSLANE_WEBHOOKS_PARAMETER: parameterName('webhooks'),
    },
    grants: [
      { kind: 'items', action: 'dynamodb:GetItem', keys: ['outbox#*'], why: 'The account\'s outbox (consistent read): its events, oldest first, and their delivery state.' },
      {
        kind: 'items',
        action: 'dynamodb:UpdateItem',
        keys: ['outbox#*', 'outbox-status#*'],
        why: 'The outbox\'s lease (conditional, one deliverer at a time), a delivered event taken off its front (conditional on the lease and the event), a failure\'s retry state; each destination\'s counts and last error.',
      },
      { kind: 'items', action: 'dynamodb:DeleteItem', keys: ['outbox#*'], why: 'An outbox emptied by its delivery (conditional: an append that raced it is never lost).' },
      { kind: 'items', action: 'dynamodb:PutItem', keys: ['outbox-dead#*'], why: 'An event a destination kept refusing, kept as a dead letter (its retries spent) so the rest of the account\'s events move on.' },
      {
        kind: 'readTableStream',
        why: 'Lambda reads the table\'s stream as this role to invoke the function (its streams only: a stream\'s ARN changes when it is turned off and on).',
      },
      { kind: 'sendToDeadLetterQueue', why: 'Lambda describes a batch whose retries ran out in the function\'s own dead-letter queue, as this role.' },
      { kind: 'putEvents', setting: 'eventBus', why: 'With a bus named: PutEvents on that bus, and no other.' },
      { kind: 'parameters', secrets: ['webhooks'], why: 'With webhooks: their JSON (URLs and signing secrets), read once per container.' },
    ],
    tableStream: {
      keyPrefix: 'outbox#',
      // The oldest record still in the stream when the mapping is created: appends made while it
      // was being created (or after it was turned off and on) still ring.
      startingPosition: 'TRIM_HORIZON',
      batchSize: 10,
      maximumBatchingWindowSeconds: 0,
      // Records of one key stay in order at any factor: Lambda splits a shard by key.
      parallelizationFactor: 10,
      // Retried until the record is older than the delivery's own retries last (its backoff and
      // attempts, features/events/settings.ts): a destination that is down for hours is caught
      // up with when it is back, and only then does a batch go to the dead-letter queue.
      maximumRetryAttempts: -1,
      maximumRecordAgeSeconds: 21_600,
      iteratorAgeAlarmMs: 600_000,
    },
  },
  {
    name: 'bench',
    entry: 'functions/bench.ts',
    why: 'No route: `passlane bench --remote` invokes it across memory sizes (packages/server/src/cli/bench/README.md). Hashes random passwords in memory: no table, no secrets.',
    memory: 1769,
    timeout: 900,
    routes: [],
    environment: {},
    grants: [],
  },
];

/** `openidConfiguration` -> `OpenidConfiguration`: the prefix of its logical ids (as osls forms them). */
export const capitalized = (name: string): string => `${name[0]!.toUpperCase()}${name.slice(1)}`;

/** `openidConfiguration` -> `openid-configuration`: its inline policy's name. */
export const kebabCase = (name: string): string => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
