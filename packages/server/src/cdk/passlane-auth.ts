/**
 * `new PasslaneAuth(scope, 'Auth', props)`: the whole passlane service on AWS as one CDK construct,
 * the same service serverless.yml deploys. Functions, their environment and one least-privilege
 * role each come from the one description (./functions.ts) that also generates serverless.yml's
 * functions and infra/iam-roles.yml; the table, the HTTP API with its throttling and authorizers,
 * and the log groups are those of infra/*.yml (test/cdk-construct.test.ts compares the two
 * templates resource by resource).
 *
 * Nothing compiles at synth: each function is the zip `npm run package` built for the chosen
 * architecture (.package/<arch>/<name>.zip, native binaries for that CPU included), taken as is
 * with Code.fromAsset. Secrets are named as SSM parameters, never given: the functions read them
 * at cold start, so no value reaches the template.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ArnFormat, Aws, CfnDynamicReference, CfnDynamicReferenceService, Duration, Fn, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  AuthorizerPayloadVersion,
  HttpApi,
  HttpAuthorizer,
  HttpAuthorizerType,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
  type HttpRouteAuthorizerConfig,
  type IHttpAuthorizer,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, CfnEventSourceMapping, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  apiGatewayRoutes,
  capitalized,
  COMMON_ENVIRONMENT,
  DEAD_LETTER_RETENTION_SECONDS,
  DEFAULT_THROTTLING,
  HANDLER,
  HASHER_MEMORY_MB,
  kebabCase,
  LOG_RETENTION_DAYS,
  PASSLANE_FUNCTIONS,
  SETTINGS,
  STREAM_READ_ACTIONS,
  streamAlarms,
  streamFilterPattern,
  TABLE_INDEX,
  TABLE_STREAM_VIEW,
  type EnvSource,
  type FunctionDescription,
  type Grant,
  type SecretName,
  type SettingName,
} from './functions.js';

export type PasslaneArchitecture = 'arm64' | 'x86_64';

export interface PasslaneSecretsProps {
  /** SecureString: "id:base64key[,...]". @default `/passlane/<stage>/pepper-keys` */
  readonly pepperKeysParameterName?: string;
  /** SecureString: the RS256 private JWK. @default `/passlane/<stage>/jwt-private-key` */
  readonly jwtPrivateKeyParameterName?: string;
  /** SecureString: base64 of 32 random bytes. @default `/passlane/<stage>/fingerprint-key` */
  readonly fingerprintKeyParameterName?: string;
  /** SecureString: the keys sealing TOTP secrets, "id:base64key[,...]". @default `/passlane/<stage>/mfa-keys` */
  readonly mfaKeysParameterName?: string;
  /**
   * A customer-managed KMS key the parameters are encrypted with: the roles that read them may
   * then kms:Decrypt with it, through SSM only. @default the AWS-managed aws/ssm key (no KMS grant)
   */
  readonly kmsKeyArn?: string;
  /** Change it after a put-parameter: every container is replaced and reads the parameters again. @default '1' */
  readonly revision?: string;
}

export interface PasslaneJwtProps {
  /** Tokens' `iss`, the public URL of the API (a custom domain). @default the HTTP API's URL */
  readonly issuer?: string;
  /** @default 'passlane-api' */
  readonly audience?: string;
  /** The signing key's public JWKS (public data). @default resolved at deploy time from the String parameter `publicKeysParameterName` */
  readonly publicKeys?: string;
  /** @default `/passlane/<stage>/jwt-public-keys` */
  readonly publicKeysParameterName?: string;
  /** Public keys still accepted during a rotation. @default none */
  readonly previousPublicKeys?: string;
}

export interface PasslaneMailProps {
  /** `no-reply@example.com` or `Example <no-reply@example.com>`, an address of a verified SES identity. */
  readonly from: string;
  /** The https app whose pages receive the links. */
  readonly appUrl: string;
  /** The identity sent as, and the only one the roles may send as. @default the From address's domain in this stack's region and account */
  readonly sesIdentityArn?: string;
  /** For bounce and complaint events; the roles may then use it. @default none */
  readonly configurationSet?: string;
  /** @default false */
  readonly emailVerification?: boolean;
  /** @default false */
  readonly requireVerifiedEmail?: boolean;
}

/** packages/server/src/features/login/settings.ts has the defaults and why; unset values keep them. */
export interface PasslaneRateLimits {
  readonly perSource?: number;
  readonly windowSeconds?: number;
  readonly passwordChangePerAccount?: number;
  readonly failuresPerAccountSource?: number;
  readonly delayBaseSeconds?: number;
  readonly delayMaxSeconds?: number;
  readonly accountFailureCeiling?: number;
  readonly accountLockSeconds?: number;
  readonly failureFloorMs?: number;
  readonly successesPerAccount?: number;
  readonly successesPerSource?: number;
  /** What `passlane inventory --timing` prints, e.g. 4.4. */
  readonly failurePadFactor?: number;
}

/**
 * A lazy migration from a legacy user store, asked at login and registration
 * (packages/server/src/features/migration/README.md): an https endpoint whose requests are signed with a key in SSM, or a
 * Lambda function (signed by IAM: the login and register roles may invoke exactly that one).
 * `functionName`: a name, `account:function:name` or an ARN, each with an optional `:version` or
 * `:alias`. `timeoutMs`: how long a login or registration waits for it (default 3000).
 */
export type PasslaneMigration =
  | { readonly url: string; readonly secretParameterName: string; readonly timeoutMs?: number }
  | { readonly functionName: string; readonly timeoutMs?: number };

/**
 * A hook (packages/server/src/hooks/README.md): an https endpoint whose requests are signed with
 * Standard Webhooks secrets kept in SSM (space-separated, SecureString), or a Lambda function
 * (signed by IAM: only the roles that ask may invoke exactly that one). `timeoutMs` @default 2000.
 */
export type PasslaneHook =
  | { readonly url: string; readonly secretsParameterName: string; readonly timeoutMs?: number }
  | { readonly functionName: string; readonly timeoutMs?: number };

export interface PasslaneAuthProps {
  /** The CPU of every function; the zips must have been packaged for it. @default 'arm64' */
  readonly architecture?: PasslaneArchitecture;
  /** Where `npm run package` put that architecture's zips. @default `.package/<architecture>` under the current directory */
  readonly bundleDirectory?: string;
  /** @default Runtime.NODEJS_22_X (the bundles' target) */
  readonly runtime?: Runtime;
  /** MB of the functions that hash passwords (CPU comes with memory). @default 1024 */
  readonly memorySize?: number;
  /** Names the default SSM parameters, `/passlane/<stage>/...`, as serverless.yml's --stage does. @default 'dev' */
  readonly stage?: string;
  readonly secrets?: PasslaneSecretsProps;
  readonly jwt?: PasslaneJwtProps;
  /** Stage throttling of every route, requests per second and burst. @default 50 and 100 */
  readonly throttling?: { readonly rateLimit?: number; readonly burstLimit?: number };
  /** The Lambda authorizer's per-container cache of session verdicts, 0 to 60 s. @default 5 */
  readonly authorizer?: { readonly cacheSeconds?: number };
  /** Without it no function may send mail, and `recovery` refuses to start. @default none */
  readonly mail?: PasslaneMailProps;
  /** @default 'auto': native where it loads, else WASM */
  readonly argon2?: { readonly backend?: 'auto' | 'native' | 'wasm' };
  readonly rateLimits?: PasslaneRateLimits;
  readonly migration?: PasslaneMigration;
  /**
   * The token hook, asked for extra access-token claims at every login and refresh, and what its
   * failure does (`refuse`, the default: 503; `without_claims`). @default none
   */
  readonly tokenHook?: PasslaneHook & { readonly onFailure?: 'refuse' | 'without_claims' };
  /** The sign-up hook, asked before registration, lazy migration or a first federated sign-in creates an account. @default none */
  readonly signupHook?: PasslaneHook;
  /** Function and access logs. @default LOG_RETENTION_DAYS (30 days), as serverless.yml */
  readonly logRetention?: RetentionDays;
  /** @default `passlane-<stage>` */
  readonly apiName?: string;
  /**
   * Origins whose pages may call the API with credentials (`https://app.example.com`), as
   * PASSLANE_CORS_ORIGINS on every function. The API has no CORS configuration of its own: the
   * functions answer preflights (packages/server/src/api/README.md, "CORS"). @default none
   */
  readonly corsOrigins?: readonly string[];
  /** The access tokens' OAuth claims, on every function (docs/oauth.md, "Settings"). */
  readonly oauth?: PasslaneOAuth;
  /** Second factors (packages/server/SECURITY.md, "Second factors: TOTP and recovery codes"). */
  readonly mfa?: PasslaneMfa;
  /** Passkeys (packages/server/SECURITY.md, "Passkeys"). @default off: every passkey route answers 501 */
  readonly passkeys?: PasslanePasskeys;
  /** Sign-in with providers (packages/server/src/features/federation/README.md). @default none: every provider route answers 404 */
  readonly federation?: PasslaneFederation;
  /** Whether account events are recorded, where the events function delivers them, who hears of its alarms (infra/README.md, "Account events"). */
  readonly events?: PasslaneEventDelivery;
}

export interface PasslaneEventDelivery {
  /**
   * Record account events: the functions that change accounts write each change's events to its
   * outbox in the same write (PASSLANE_EVENTS=on; packages/server/src/events/README.md), and the
   * events function delivers them. @default false: nothing is recorded, the events function never runs
   */
  readonly enabled?: boolean;
  /**
   * Sign-in events too: each login's session write carries a `session.started` (PASSLANE_EVENTS_SIGN_IN=on;
   * packages/server/src/events/README.md, "Sign-in events", for what it costs per login). Only with `enabled`.
   * @default false
   */
  readonly signIn?: boolean;
  /**
   * The EventBridge bus the events function publishes to, by name, in this stack's account and
   * region (`default`: the account's default bus); its role may PutEvents on that bus alone. The
   * bus is the team's, not the construct's: rules and other publishers outlive this stack.
   * @default none: no EventBridge destination
   */
  readonly busName?: string;
  /**
   * The SSM SecureString holding PASSLANE_WEBHOOKS' JSON, `[{ "name", "url", "secrets": ["whsec_..."] }]`
   * (packages/server/src/config/README.md); the events function's role may read it. @default none: no webhooks
   */
  readonly webhooksParameterName?: string;
  /** The SNS topic the events function's alarms notify. @default none: the alarms only change state */
  readonly alarmTopicArn?: string;
}

export interface PasslaneFederation {
  /** The providers, as PASSLANE_OAUTH_PROVIDERS reads them (packages/server/src/config/README.md): a JSON object by name. */
  readonly providers: Readonly<Record<string, unknown>>;
  /** The URL the providers' callbacks come back to (PASSLANE_PUBLIC_URL). @default the issuer */
  readonly publicUrl?: string;
  /** The SSM SecureString holding their client secrets and Apple's key, `{ "<name>": { "clientSecret"?, "privateKey"? } }`. @default none */
  readonly secretsParameterName?: string;
}

export interface PasslanePasskeys {
  /** The relying-party ID: the site's domain or a parent of it, never an IP (PASSLANE_WEBAUTHN_RP_ID). */
  readonly rpId: string;
  /** The exact origins of the pages that call the API (PASSLANE_WEBAUTHN_ORIGINS). @default `https://<rpId>` */
  readonly origins?: readonly string[];
  /** The name authenticators show (PASSLANE_WEBAUTHN_RP_NAME). @default the service name */
  readonly rpName?: string;
}

export interface PasslaneMfa {
  /** The issuer authenticator apps show (PASSLANE_MFA_ISSUER). @default `passlane` */
  readonly issuer?: string;
  /** Refuse tokens without `mfa` in `amr` at the Lambda authorizer and passlane's Bearer routes (PASSLANE_REQUIRE_MFA). @default false */
  readonly required?: boolean;
}

export interface PasslaneOAuth {
  /** Every token's `client_id` (PASSLANE_OAUTH_CLIENT_ID). @default `passlane` */
  readonly clientId?: string;
  /** Every token's `scope` (PASSLANE_TOKEN_SCOPES), what `authorizationScopes` of JWT routes read. @default none */
  readonly scopes?: readonly string[];
  /** The scope a token must carry at the Lambda authorizer and passlane's Bearer routes (PASSLANE_REQUIRED_SCOPE). @default none */
  readonly requiredScope?: string;
}

/** A route authorizer of this API, for the team's own routes: `api.addRoutes({ ..., authorizer })`. */
class PasslaneRouteAuthorizer implements IHttpRouteAuthorizer {
  constructor(
    private readonly authorizer: IHttpAuthorizer,
    /** JWT (API Gateway's own check) or CUSTOM (a Lambda authorizer). */
    private readonly authorizationType: 'JWT' | 'CUSTOM',
  ) {}

  bind(): HttpRouteAuthorizerConfig {
    return { authorizerId: this.authorizer.authorizerId, authorizationType: this.authorizationType };
  }
}

const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
});

const RATE_LIMIT_SETTINGS: Record<keyof PasslaneRateLimits, SettingName> = {
  perSource: 'loginLimitPerIp',
  windowSeconds: 'loginLimitWindowSeconds',
  passwordChangePerAccount: 'passwordChangeLimitPerAccount',
  failuresPerAccountSource: 'loginFailuresPerAccountSource',
  delayBaseSeconds: 'loginDelayBaseSeconds',
  delayMaxSeconds: 'loginDelayMaxSeconds',
  accountFailureCeiling: 'loginAccountFailureCeiling',
  accountLockSeconds: 'loginAccountLockSeconds',
  failureFloorMs: 'loginFailureFloorMs',
  successesPerAccount: 'loginSuccessLimitPerAccount',
  successesPerSource: 'loginSuccessLimitPerIp',
  failurePadFactor: 'loginFailurePadFactor',
};

/**
 * The zips of one architecture: each function's `<name>.zip` next to the manifest.json
 * scripts/package-functions.ts writes, whose `arch` must be the one asked for (a template for
 * one CPU never points at binaries built for the other).
 */
export function bundleZips(directory: string, architecture: PasslaneArchitecture, functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): Record<string, string> {
  const hint = `run \`npm run package -- --arch ${architecture} --zips-only\` first`;
  const manifestFile = join(directory, 'manifest.json');
  if (!existsSync(manifestFile)) throw new Error(`PasslaneAuth: no packaged functions in ${directory} (no manifest.json): ${hint}`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { arch?: unknown };
  if (manifest.arch !== architecture) {
    throw new Error(`PasslaneAuth: ${directory} holds zips for ${String(manifest.arch)}, not ${architecture}: ${hint}`);
  }
  return Object.fromEntries(
    functions.map((fn) => {
      const zip = join(directory, `${fn.name}.zip`);
      if (!existsSync(zip)) throw new Error(`PasslaneAuth: ${zip} is missing: ${hint}`);
      return [fn.name, zip];
    }),
  );
}

export class PasslaneAuth extends Construct {
  /** The one table (on-demand, TTL on expiresAt, point-in-time recovery, deletion protection, kept when the stack goes). */
  readonly table: Table;
  readonly api: HttpApi;
  /** The API's `$default` stage: throttled, with access logs. */
  readonly stage: HttpStage;
  /** `https://<api id>.execute-api.<region>.<suffix>`, no trailing slash. */
  readonly apiUrl: string;
  /** Tokens' `iss`: the API's URL unless `jwt.issuer` is given. */
  readonly issuer: string;
  readonly audience: string;
  /** `<issuer>/.well-known/jwks.json`, for verifiers elsewhere. */
  readonly jwksUrl: string;
  /** Every function by its name in the description (register, login, ..., rehash, bench). */
  readonly functions: Readonly<Record<string, LambdaFunction>>;
  /** The dead-letter queue of each function the table's stream invokes (`events`), by function name. */
  readonly deadLetterQueues: Readonly<Record<string, Queue>>;
  /** The Lambda authorizer (token and live session), for another API's authorizer. */
  readonly authorizerFunction: LambdaFunction;
  /** API Gateway checks the JWT itself: no invocation, no revocation before expiry. */
  readonly jwtAuthorizer: IHttpRouteAuthorizer;
  /** The authorizer function: the JWT and that its session is live (revoked within the cache seconds). */
  readonly sessionAuthorizer: IHttpRouteAuthorizer;
  readonly accessLogs: LogGroup;

  private readonly settings: Partial<Record<SettingName, string>>;
  private readonly parameterNames: Partial<Record<SecretName, string>>;
  private readonly kmsKeyArn: string | undefined;

  /**
   * @param functions the description to deploy; only tests pass another one (to show that a
   *   change to it reaches this template as it reaches serverless.yml's).
   */
  constructor(scope: Construct, id: string, props: PasslaneAuthProps = {}, functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS) {
    super(scope, id);
    const stack = Stack.of(this);
    const architecture = props.architecture ?? 'arm64';
    const stage = props.stage ?? 'dev';
    // The description's retention, which serverless.yml's generated section also writes.
    const retention: RetentionDays = props.logRetention ?? LOG_RETENTION_DAYS;
    const zips = bundleZips(resolve(props.bundleDirectory ?? join('.package', architecture)), architecture, functions);

    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      // Rate-limit windows, tokens and counters carry `expiresAt` (epoch seconds); accounts never do.
      timeToLiveAttribute: 'expiresAt',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      // Keys only: the doorbell of account events, never a copy of an item (functions.ts, TABLE_STREAM_VIEW).
      stream: StreamViewType[TABLE_STREAM_VIEW],
      // Accounts outlive any stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // The account behind an access token's `sub`; keys only, the item is then read by pk.
    this.table.addGlobalSecondaryIndex({ indexName: TABLE_INDEX, partitionKey: { name: 'userId', type: AttributeType.STRING }, projectionType: ProjectionType.KEYS_ONLY });

    this.api = new HttpApi(this, 'Api', { apiName: props.apiName ?? `passlane-${stage}`, createDefaultStage: false });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention, removalPolicy: RemovalPolicy.DESTROY });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      // Every route: over it API Gateway answers 429 without invoking anything.
      throttle: { rateLimit: props.throttling?.rateLimit ?? DEFAULT_THROTTLING.rateLimit, burstLimit: props.throttling?.burstLimit ?? DEFAULT_THROTTLING.burstLimit },
      // Route, status, source IP, request id; never bodies.
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: AccessLogFormat.custom(ACCESS_LOG_FORMAT) },
    });
    // The API's endpoint spelled out (as serverless.yml does), rather than its ApiEndpoint
    // attribute: the same URL, and a template reader needs only the API's id to know it.
    this.apiUrl = `https://${this.api.apiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`;
    this.issuer = props.jwt?.issuer ?? this.apiUrl;
    this.audience = props.jwt?.audience ?? 'passlane-api';
    this.jwksUrl = `${this.issuer}/.well-known/jwks.json`;

    this.parameterNames = {
      pepperKeys: props.secrets?.pepperKeysParameterName ?? `/passlane/${stage}/pepper-keys`,
      jwtPrivateKey: props.secrets?.jwtPrivateKeyParameterName ?? `/passlane/${stage}/jwt-private-key`,
      fingerprintKey: props.secrets?.fingerprintKeyParameterName ?? `/passlane/${stage}/fingerprint-key`,
      mfaKeys: props.secrets?.mfaKeysParameterName ?? `/passlane/${stage}/mfa-keys`,
      ...(props.migration !== undefined && 'secretParameterName' in props.migration && { migrationSecret: props.migration.secretParameterName }),
      ...(props.federation?.secretsParameterName !== undefined && { oauthSecrets: props.federation.secretsParameterName }),
      ...(props.events?.webhooksParameterName !== undefined && { webhooks: props.events.webhooksParameterName }),
      ...(props.tokenHook !== undefined && 'secretsParameterName' in props.tokenHook && { tokenHookSecrets: props.tokenHook.secretsParameterName }),
      ...(props.signupHook !== undefined && 'secretsParameterName' in props.signupHook && { signupHookSecrets: props.signupHook.secretsParameterName }),
    };
    this.kmsKeyArn = props.secrets?.kmsKeyArn;
    const sesIdentity = props.mail === undefined ? '' : (props.mail.sesIdentityArn ?? this.domainIdentityArn(props.mail.from));
    const publicKeys =
      props.jwt?.publicKeys ??
      new CfnDynamicReference(CfnDynamicReferenceService.SSM, props.jwt?.publicKeysParameterName ?? `/passlane/${stage}/jwt-public-keys`).toString();
    this.settings = {
      jwtIssuer: this.issuer,
      jwtAudience: this.audience,
      jwtPublicKeys: publicKeys,
      ...(props.jwt?.previousPublicKeys !== undefined && { jwtPreviousPublicKeys: props.jwt.previousPublicKeys }),
      ...(props.secrets?.revision !== undefined && { secretsRevision: props.secrets.revision }),
      ...(props.authorizer?.cacheSeconds !== undefined && { authorizerCacheSeconds: String(props.authorizer.cacheSeconds) }),
      hasherMemorySize: String(props.memorySize ?? HASHER_MEMORY_MB),
      mailFrom: props.mail?.from ?? '',
      appUrl: props.mail?.appUrl ?? '',
      sesIdentity,
      sesConfigurationSet: props.mail?.configurationSet ?? '',
      emailVerification: String(props.mail?.emailVerification ?? false),
      requireVerifiedEmail: String(props.mail?.requireVerifiedEmail ?? false),
      ...(props.argon2?.backend !== undefined && { argon2Backend: props.argon2.backend }),
      ...Object.fromEntries(
        Object.entries(props.rateLimits ?? {})
          .filter(([, value]) => value !== undefined)
          .map(([key, value]) => [RATE_LIMIT_SETTINGS[key as keyof PasslaneRateLimits], String(value)]),
      ),
      ...(props.migration !== undefined && 'url' in props.migration && { migrationUrl: props.migration.url }),
      ...(props.migration !== undefined && 'functionName' in props.migration && { migrationFunction: props.migration.functionName }),
      ...(props.migration?.timeoutMs !== undefined && { migrationTimeoutMs: String(props.migration.timeoutMs) }),
      ...(props.tokenHook !== undefined && 'url' in props.tokenHook && { tokenHookUrl: props.tokenHook.url }),
      ...(props.tokenHook !== undefined && 'functionName' in props.tokenHook && { tokenHookFunction: props.tokenHook.functionName }),
      ...(props.tokenHook?.timeoutMs !== undefined && { tokenHookTimeoutMs: String(props.tokenHook.timeoutMs) }),
      ...(props.tokenHook?.onFailure !== undefined && { tokenHookOnFailure: props.tokenHook.onFailure }),
      ...(props.signupHook !== undefined && 'url' in props.signupHook && { signupHookUrl: props.signupHook.url }),
      ...(props.signupHook !== undefined && 'functionName' in props.signupHook && { signupHookFunction: props.signupHook.functionName }),
      ...(props.signupHook?.timeoutMs !== undefined && { signupHookTimeoutMs: String(props.signupHook.timeoutMs) }),
      ...(props.corsOrigins !== undefined && props.corsOrigins.length > 0 && { corsOrigins: props.corsOrigins.join(',') }),
      ...(props.oauth?.clientId !== undefined && { oauthClientId: props.oauth.clientId }),
      ...(props.oauth?.scopes !== undefined && props.oauth.scopes.length > 0 && { tokenScopes: props.oauth.scopes.join(' ') }),
      ...(props.oauth?.requiredScope !== undefined && { requiredScope: props.oauth.requiredScope }),
      ...(props.mfa?.issuer !== undefined && { mfaIssuer: props.mfa.issuer }),
      ...(props.mfa?.required !== undefined && { requireMfa: String(props.mfa.required) }),
      ...(props.passkeys !== undefined && { webauthnRpId: props.passkeys.rpId }),
      ...(props.passkeys?.origins !== undefined && props.passkeys.origins.length > 0 && { webauthnOrigins: props.passkeys.origins.join(',') }),
      ...(props.passkeys?.rpName !== undefined && { webauthnRpName: props.passkeys.rpName }),
      ...(props.federation !== undefined && { oauthProviders: JSON.stringify(props.federation.providers) }),
      ...(props.federation?.publicUrl !== undefined && { publicUrl: props.federation.publicUrl }),
      ...(props.events?.enabled !== undefined && { events: props.events.enabled ? 'on' : 'off' }),
      ...(props.events?.signIn !== undefined && { eventsSignIn: props.events.signIn ? 'on' : 'off' }),
      ...(props.events?.busName !== undefined && { eventBus: props.events.busName }),
      ...(props.events?.alarmTopicArn !== undefined && { alarmTopicArn: props.events.alarmTopicArn }),
    };

    const runtime = props.runtime ?? Runtime.NODEJS_22_X;
    const built: Record<string, LambdaFunction> = {};
    const deadLetterQueues: Record<string, Queue> = {};
    for (const fn of functions) {
      const id = capitalized(fn.name);
      const logGroup = new LogGroup(this, `${id}Logs`, { retention, removalPolicy: RemovalPolicy.DESTROY });
      // Metadata of failed batches only (shard, sequence numbers), never an item: the stream holds keys alone.
      const deadLetterQueue =
        fn.tableStream === undefined
          ? undefined
          : new Queue(this, `${id}DeadLetterQueue`, { retentionPeriod: Duration.seconds(DEAD_LETTER_RETENTION_SECONDS), encryption: QueueEncryption.SQS_MANAGED });
      if (deadLetterQueue !== undefined) deadLetterQueues[fn.name] = deadLetterQueue;
      const role = new Role(this, `${id}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        // Inline and unminimized: statement for statement what infra/iam-roles.yml holds.
        inlinePolicies: { [kebabCase(fn.name)]: new PolicyDocument({ statements: this.statements(fn, logGroup, deadLetterQueue), minimize: false }) },
      });
      const memory = typeof fn.memory === 'number' ? fn.memory : Number(this.setting(fn.memory.setting));
      built[fn.name] = new LambdaFunction(this, `${id}Function`, {
        runtime,
        architecture: architecture === 'arm64' ? Architecture.ARM_64 : Architecture.X86_64,
        handler: HANDLER,
        code: Code.fromAsset(zips[fn.name]!),
        memorySize: memory,
        timeout: Duration.seconds(fn.timeout),
        environment: this.environment({ ...COMMON_ENVIRONMENT, ...fn.environment }),
        role,
        logGroup,
        ...(fn.reservedConcurrency !== undefined && { reservedConcurrentExecutions: fn.reservedConcurrency }),
      });
      if (deadLetterQueue !== undefined) this.streamTrigger(fn, built[fn.name]!, role, deadLetterQueue);
    }
    this.functions = built;
    this.deadLetterQueues = deadLetterQueues;

    for (const fn of functions) {
      if (fn.routes.length === 0) continue;
      const integration = new HttpLambdaIntegration(`${capitalized(fn.name)}Integration`, built[fn.name]!, { payloadFormatVersion: PayloadFormatVersion.VERSION_2_0 });
      // The operator API's routes: only requests an IAM principal signed, as serverless.yml's `authorizer: { type: aws_iam }`.
      const authorizer = fn.routeAuthorization === 'iam' ? new HttpIamAuthorizer() : undefined;
      for (const route of apiGatewayRoutes(fn)) {
        const [method, path] = route.split(' ') as [keyof typeof HttpMethod, string];
        this.api.addRoutes({ path, methods: [HttpMethod[method]], integration, ...(authorizer !== undefined && { authorizer }) });
      }
    }

    // Both authorizers exist whether or not a route uses them, as in serverless.yml: the team's
    // routes pick one (infra/README.md, "Protecting another API with passlane's tokens").
    const jwt = new HttpAuthorizer(this, 'JwtAuthorizer', {
      httpApi: this.api,
      authorizerName: 'passlaneJwt',
      type: HttpAuthorizerType.JWT,
      identitySource: ['$request.header.Authorization'],
      jwtIssuer: this.issuer,
      jwtAudience: [this.audience],
    });
    this.jwtAuthorizer = new PasslaneRouteAuthorizer(jwt, 'JWT');
    const authorizerFunction = built.authorizer;
    if (authorizerFunction === undefined) throw new Error('PasslaneAuth: the description has no authorizer function');
    this.authorizerFunction = authorizerFunction;
    const session = new HttpAuthorizer(this, 'SessionAuthorizer', {
      httpApi: this.api,
      authorizerName: 'passlaneSession',
      type: HttpAuthorizerType.LAMBDA,
      identitySource: ['$request.header.Authorization'],
      authorizerUri: `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}:lambda:path/2015-03-31/functions/${authorizerFunction.functionArn}/invocations`,
      enableSimpleResponses: true,
      payloadFormatVersion: AuthorizerPayloadVersion.VERSION_2_0,
      // API Gateway's own cache would add its TTL to a revocation's delay: the function caches.
      resultsCacheTtl: Duration.seconds(0),
    });
    authorizerFunction.addPermission('ApiGatewayInvoke', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: stack.formatArn({ service: 'execute-api', resource: this.api.apiId, resourceName: `authorizers/${session.authorizerId}`, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }),
    });
    this.sessionAuthorizer = new PasslaneRouteAuthorizer(session, 'CUSTOM');
  }

  /**
   * The event source mapping on the table's stream and the alarms, as serverless.yml's `stream`
   * event and infra/stream-triggers.yml have them. L1 resources, not DynamoEventSource and Alarm:
   * those would attach policies of their own to the role, which then would not be the one
   * infra/iam-roles.yml holds.
   */
  private streamTrigger(fn: FunctionDescription, lambda: LambdaFunction, role: Role, deadLetterQueue: Queue): void {
    const trigger = fn.tableStream!;
    const id = capitalized(fn.name);
    const mapping = new CfnEventSourceMapping(this, `${id}StreamTrigger`, {
      batchSize: trigger.batchSize,
      enabled: true,
      eventSourceArn: this.table.tableStreamArn!,
      functionName: lambda.functionArn,
      parallelizationFactor: trigger.parallelizationFactor,
      startingPosition: trigger.startingPosition,
      maximumBatchingWindowInSeconds: trigger.maximumBatchingWindowSeconds,
      maximumRetryAttempts: trigger.maximumRetryAttempts,
      bisectBatchOnFunctionError: true,
      functionResponseTypes: ['ReportBatchItemFailures'],
      maximumRecordAgeInSeconds: trigger.maximumRecordAgeSeconds,
      destinationConfig: { onFailure: { destination: deadLetterQueue.queueArn } },
      filterCriteria: { filters: [{ pattern: JSON.stringify(streamFilterPattern(trigger)) }] },
    });
    // Lambda checks at creation that the role may read the stream: the role (its inline policy) first.
    mapping.node.addDependency(role);
    const topic = this.setting('alarmTopicArn');
    for (const alarm of streamAlarms(fn)) {
      new CfnAlarm(this, `${id}${alarm.suffix}`, {
        alarmDescription: alarm.why,
        namespace: alarm.namespace,
        metricName: alarm.metric,
        dimensions: [alarm.of === 'deadLetterQueue' ? { name: 'QueueName', value: deadLetterQueue.queueName } : { name: 'FunctionName', value: lambda.functionName }],
        statistic: alarm.statistic,
        period: alarm.periodSeconds,
        evaluationPeriods: alarm.evaluationPeriods,
        threshold: alarm.threshold,
        comparisonOperator: 'GreaterThanThreshold',
        // No data is no failure: an idle queue or function reports nothing.
        treatMissingData: 'notBreaching',
        ...(topic !== undefined && { alarmActions: [topic] }),
      });
    }
  }

  /** A setting's value here: given (props or derived), else its description default; undefined = unset. */
  private setting(name: SettingName): string | undefined {
    const given = this.settings[name];
    if (given !== undefined) return given;
    const setting = SETTINGS[name];
    if (setting.kind === 'custom') throw new Error(`PasslaneAuth: no value for the setting ${name}`);
    return setting.default ?? undefined;
  }

  private environment(variables: Readonly<Record<string, EnvSource>>): Record<string, string> {
    const values: Record<string, string> = {};
    for (const [name, source] of Object.entries(variables)) {
      const value = this.envValue(source);
      if (value !== undefined) values[name] = value;
    }
    return values;
  }

  private envValue(source: EnvSource): string | undefined {
    switch (source.kind) {
      case 'literal':
        return source.value;
      case 'table':
        return this.table.tableName;
      case 'parameterName':
        return this.parameterNames[source.secret];
      case 'setting':
        return this.setting(source.setting);
    }
  }

  private parameterArn(name: string): string {
    // Parameter names start with '/'; the ARN puts one between `parameter` and the name.
    return Stack.of(this).formatArn({ service: 'ssm', resource: 'parameter', resourceName: name.replace(/^\//, ''), arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  }

  /**
   * The ARN Lambda authorizes an invocation of `name` against, as the function names it: an ARN as
   * it is, `account:function:name[:qualifier]` or `name[:qualifier]` in this stack's region (and
   * account). A qualifier stays: IAM treats `function:name:alias` as its own resource.
   */
  private functionArn(name: string): string {
    if (Token.isUnresolved(name) || name.startsWith('arn:')) return name;
    const partial = /^(\d{12}):function:(.+)$/.exec(name);
    if (partial !== null) return `arn:${Aws.PARTITION}:lambda:${Aws.REGION}:${partial[1]}:function:${partial[2]}`;
    return Stack.of(this).formatArn({ service: 'lambda', resource: 'function', resourceName: name, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
  }

  /** The SES identity of the From address's domain: `Example <a@example.com>` -> identity/example.com. */
  private domainIdentityArn(from: string): string {
    const domain = Token.isUnresolved(from) ? Fn.select(0, Fn.split('>', Fn.select(1, Fn.split('@', from)))) : (from.split('@')[1] ?? '').split('>')[0]!.trim();
    if (domain === '') throw new Error(`PasslaneAuth: mail.from has no domain (${from})`);
    return Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: domain, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  }

  /** The role's statements, in the order the description and infra/iam-roles.yml have them. */
  private statements(fn: FunctionDescription, logGroup: LogGroup, deadLetterQueue: Queue | undefined): PolicyStatement[] {
    const statements = [new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] })];
    for (const grant of fn.grants) {
      const statement = this.grantStatement(fn, grant, deadLetterQueue);
      if (statement !== undefined) statements.push(statement);
    }
    if (this.kmsKeyArn !== undefined && fn.grants.some((grant) => grant.kind === 'parameters')) {
      statements.push(
        new PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [this.kmsKeyArn],
          conditions: { StringEquals: { 'kms:ViaService': `ssm.${Aws.REGION}.${Aws.URL_SUFFIX}` } },
        }),
      );
    }
    return statements;
  }

  /** undefined: a grant that applies only when configured, and is not. */
  private grantStatement(fn: FunctionDescription, grant: Grant, deadLetterQueue: Queue | undefined): PolicyStatement | undefined {
    switch (grant.kind) {
      case 'items':
        return new PolicyStatement({
          actions: [grant.action],
          resources: [this.table.tableArn],
          conditions: { [grant.exact ? 'ForAllValues:StringEquals' : 'ForAllValues:StringLike']: { 'dynamodb:LeadingKeys': [...grant.keys] } },
        });
      case 'index':
        return new PolicyStatement({ actions: [grant.action], resources: [`${this.table.tableArn}/index/${grant.index}`] });
      case 'scan':
        return new PolicyStatement({ actions: ['dynamodb:Scan'], resources: [this.table.tableArn] });
      case 'parameters': {
        const names = grant.secrets.map((secret) => this.parameterNames[secret]).filter((name) => name !== undefined);
        return names.length === 0 ? undefined : new PolicyStatement({ actions: ['ssm:GetParameter'], resources: names.map((name) => this.parameterArn(name)) });
      }
      case 'sendMail': {
        const identity = this.setting('sesIdentity') ?? '';
        if (identity === '') return undefined;
        const configurationSet = this.setting('sesConfigurationSet') ?? '';
        const resources = [identity];
        if (configurationSet !== '') {
          // In the identity's region: SES is called there.
          const region = Token.isUnresolved(identity) ? Fn.select(3, Fn.split(':', identity)) : identity.split(':')[3]!;
          resources.push(Stack.of(this).formatArn({ service: 'ses', region, resource: 'configuration-set', resourceName: configurationSet, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }));
        }
        return new PolicyStatement({ actions: ['ses:SendEmail'], resources });
      }
      case 'invokeFunction': {
        const name = this.setting(grant.setting);
        return name === undefined ? undefined : new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.functionArn(name)] });
      }
      case 'readTableStream':
        // The table's streams, whichever is current: a stream's ARN changes when it is turned off and on.
        return new PolicyStatement({ actions: [...STREAM_READ_ACTIONS], resources: [`${this.table.tableArn}/stream/*`] });
      case 'sendToDeadLetterQueue':
        if (deadLetterQueue === undefined) throw new Error(`PasslaneAuth: ${fn.name} has a dead-letter queue grant without a tableStream trigger`);
        return new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [deadLetterQueue.queueArn] });
      case 'putEvents': {
        const bus = this.setting(grant.setting);
        return bus === undefined
          ? undefined
          : new PolicyStatement({ actions: ['events:PutEvents'], resources: [Stack.of(this).formatArn({ service: 'events', resource: 'event-bus', resourceName: bus, arnFormat: ArnFormat.SLASH_RESOURCE_NAME })] });
      }
    }
  }
}
