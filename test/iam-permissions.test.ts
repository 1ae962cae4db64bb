/**
 * Every AWS call each Lambda function makes, checked against that function's role with a real IAM
 * policy evaluator (@cloud-copilot/iam-simulate), in both templates that deploy the service: the
 * one osls packages from serverless.yml and the one the CDK construct (src/cdk) synthesizes.
 *
 * Each function runs through its real handler (functions/*.ts) in-process, as its own container:
 * the environment from the template (table, parameter names, mail settings), secrets from a local
 * SSM stand-in (or as plain env), DynamoDB Local, mail through a local SES v2 endpoint. A
 * middleware on every DynamoDB, SSM and SES client records each call's action, resource and
 * partition keys. Then, per function:
 *   - every recorded call must be allowed by its role (LeadingKeys conditions included), in the
 *     Serverless template and in the CDK one;
 *   - every grant of the role (action, resource, LeadingKeys pattern) must be used by some call;
 *   - item-level grants must carry a ForAllValues LeadingKeys condition;
 *   - the calls must be exactly FUNCTION_ACCESS (test/support/function-access.ts).
 * DynamoDB Local, not dynalite: it returns the item of a failed condition as DynamoDB does
 * (ReturnValuesOnConditionCheckFailure), so the calls are the ones made in AWS.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});
import { LAMBDA_FUNCTIONS } from '../scripts/packaging/lambda-functions.js';
import { readStorageConfig } from '../packages/server/src/config/storage-config.js';
import { AccountStore } from '../packages/server/src/storage/account-store.js';
import { IdentityStore } from '../packages/server/src/storage/identity-store.js';
import { createEmailFingerprint } from '../packages/server/src/accounts/fingerprint.js';
import { dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';
import { JobCursorStore } from '../packages/server/src/storage/job-cursor-store.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { publicJwks } from '../packages/server/src/features/tokens/jwks.js';
import { createKeyring, generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { freePort, startDynamoDbLocal, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { legacyFixtures } from './support/fixtures.js';
import { oldSystemAccounts, startOldSystemServer } from './support/old-system.js';
import { FUNCTION_ACCESS } from './support/function-access.js';
import { keyKind, recordAllAwsClients, type AwsRequest, type CallSink, type KeySchema } from './support/iam/aws-call-recorder.js';
import { deniedRequests, resourceArn, suggestedStatements, summarize, unconditionedItemGrants, unusedGrants } from './support/iam/check-access.js';
import { createResolver, eventSourceRequests, LAMBDA_CHECKED_ONLY, functionEnvironment, functionRoles, tableKeySchema, type FunctionRole, type Template } from './support/iam/template-roles.js';
import { startLocalEventBridgeEndpoint, type LocalEventBridgeEndpoint } from './support/local-eventbridge-endpoint.js';
import { appendToOutbox, someEvents } from './support/outbox-append.js';
import { outboxStreamEvent } from './support/outbox-stream-event.js';
import { newWebhookSecret, startWebhookReceiver } from './support/webhook-receiver.js';
import { httpApiAuthorizerEvent } from './support/authorizer-events.js';
import { httpApiEvent } from './support/http-api-event.js';
import { lambdaContext } from './support/lambda-context.js';
import { startLocalSsmEndpoint, type LocalSsmEndpoint } from './support/local-ssm-endpoint.js';
import { packageTemplateOnly } from './support/packaging.js';
import { logGroupNames, placeholderBundles, queueNames, serverlessLogicalIds, serverlessShaped, synthConstruct } from './support/deploy-templates.js';
import { PASSLANE_FUNCTIONS, type FunctionDescription } from '../packages/server/src/cdk/functions.js';
import type { PasslaneAuthProps } from '../packages/server/src/cdk/passlane-auth.js';
import { startSesCapture, type SesCapture } from './support/ses-capture.js';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { softwareAuthenticator } from './support/software-authenticator.js';
import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import { startLocalLambdaApi, type LocalLambdaApi } from '../packages/server/src/cli/bench/remote/local-lambda-api.js';
import { startOidcProvider } from './support/oidc-provider.js';
import { throughProvider } from './support/provider-browser.js';

/**
 * The table serverless.yml names (custom.tableName, for stage dev), which the CDK's generated
 * name stands in for; and what CloudFormation would name the API.
 */
const TABLE = 'passlane-dev-users';
const PHYSICAL_IDS = { UsersTable: TABLE, HttpApi: 'iamcheck01', ...queueNames() };

/**
 * Mail as a deploy would configure it (infra/README.md, "Sending mail"): the identity derived from
 * the From address's domain, and a configuration set, so SES authorizes both resources.
 */
const MAIL_PARAMETERS = { mailFrom: 'Passlane <no-reply@mail.example.test>', appUrl: 'https://app.example.test', sesConfigurationSet: 'passlane-events' };
/**
 * Account events on (`--param=events=on`, PASSLANE_EVENTS): each change of an account is then one
 * TransactWriteItems with its outbox append, whose items IAM authorizes one by one, so the roles'
 * `outbox#` grants are exercised (the grants are there with events off too: never used then).
 * Sign-in events too (`eventsSignIn`, PASSLANE_EVENTS_SIGN_IN): each login's session write carries
 * its `session.started`, so passkeyLogin's `outbox#` grant (its only use) is exercised as well.
 */
const EVENTS_ON = { events: 'on', eventsSignIn: 'on' };
const DERIVED_IDENTITY = 'arn:aws:ses:eu-west-1:123456789012:identity/mail.example.test';
/** An identity given as a parameter instead: another region (SES is called there) and account. */
const EXPLICIT_IDENTITY = 'arn:aws:ses:us-east-1:210987654321:identity/no-reply@example.org';
const asParameters = (values: Record<string, string>) => Object.entries(values).map(([name, value]) => `--param=${name}=${value}`);
/** The template's email verification is off; these scenarios turn it on, so its calls are recorded too. */
const VERIFICATION_ON = { PASSLANE_EMAIL_VERIFICATION: 'true', PASSLANE_REQUIRE_VERIFIED_EMAIL: 'true' };

/** The same mail settings as construct props. */
const CDK_MAIL = { from: MAIL_PARAMETERS.mailFrom, appUrl: MAIL_PARAMETERS.appUrl, configurationSet: MAIL_PARAMETERS.sesConfigurationSet };
/** Account events to a bus (infra/README.md, "Account events"), so the events role may PutEvents on it. */
const EVENT_BUS = 'team-events';
let cdkProps: PasslaneAuthProps;

/**
 * The roles as the CDK construct makes them from `functions`: its logical ids as osls names them,
 * and CloudFormation's generated log group names (the only names the two templates do not share).
 */
function cdkRolesFor(dir: string, props: PasslaneAuthProps, functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): Map<string, FunctionRole> {
  const { stack, auth, template: synthesized } = synthConstruct(join(workDir, dir), props, functions);
  const shaped = serverlessShaped(synthesized, serverlessLogicalIds(stack, auth, functions)) as unknown as Template;
  return new Map(functionRoles(shaped, createResolver(shaped, { ...PHYSICAL_IDS, ...logGroupNames(functions) })).map((role) => [role.functionName, role]));
}

/** The functions driven here; bench only hashes in memory (minutes of it) and is checked statically. */
type Driven = 'events' | 'register' | 'login' | 'token' | 'sessions' | 'mfa' | 'passkeys' | 'passkeyLogin' | 'factorUndo' | 'account' | 'password' | 'recovery' | 'emailChange' | 'jwks' | 'openidConfiguration' | 'authorizer' | 'rehash' | 'admin' | 'federation';
type Handler = (event: unknown, context: Context) => Promise<unknown>;
const ENTRIES: Record<Driven, () => Promise<{ handler: unknown }>> = {
  events: () => import('../functions/events.js'),
  register: () => import('../functions/register.js'),
  login: () => import('../functions/login.js'),
  token: () => import('../functions/token.js'),
  sessions: () => import('../functions/sessions.js'),
  mfa: () => import('../functions/mfa.js'),
  passkeys: () => import('../functions/passkeys.js'),
  passkeyLogin: () => import('../functions/passkey-login.js'),
  factorUndo: () => import('../functions/factor-undo.js'),
  account: () => import('../functions/account.js'),
  password: () => import('../functions/password.js'),
  recovery: () => import('../functions/recovery.js'),
  emailChange: () => import('../functions/email-change.js'),
  jwks: () => import('../functions/jwks.js'),
  openidConfiguration: () => import('../functions/openid-configuration.js'),
  authorizer: () => import('../functions/authorizer.js'),
  rehash: () => import('../functions/rehash.js'),
  admin: () => import('../functions/admin.js'),
  federation: () => import('../functions/federation.js'),
};

/** A legacy record the functions upgrade: bcrypt, cost 4, so the test stays fast. */
const LEGACY = legacyFixtures.hashes.find((entry) => entry.id === 'bcrypt-2b-c4-ascii')!;
const OTHER_LEGACY = legacyFixtures.hashes.find((entry) => entry.id === 'bcrypt-2a-c4-ascii')!;
const NEW_PASSWORD = 'a long enough new passphrase';
/** Low, so the rate-limit scenarios need few requests; other requests come from random addresses. */
const LIMIT_PER_SOURCE = 3;

let workDir: string;
let template: Template;
/** The same service packaged with sesIdentityArn = EXPLICIT_IDENTITY (checked statically). */
let explicitIdentityTemplate: Template;
let roles: Map<string, FunctionRole>;
/** The same roles as the CDK construct makes them, for the same mail settings (and with the explicit identity). */
let cdkRoles: Map<string, FunctionRole>;
let cdkExplicitIdentityRoles: Map<string, FunctionRole>;
let keySchema: KeySchema;
let dynamo: RunningDynamoDb;
let ssm: LocalSsmEndpoint;
let ses: SesCapture;
let bridge: LocalEventBridgeEndpoint;
let signingKey: JWK;
let pepperKeys: string;
let fingerprintKey: string;
let mfaKeys: string;
/** The test's own client (seeding, checking), never recorded. */
let seedClient: DynamoDBClient;
let seedUsers: AccountStore;
let awsEnv: Record<string, string>;
const untracked = new WeakSet<object>();
/** Everything each function called, over all its containers. */
const recorded = new Map<string, AwsRequest[]>();
let currentSink: CallSink | undefined;
/** Calls made outside any invocation (at import, say): there should be none, and none unchecked. */
const outsideInvocations: AwsRequest[] = [];
const savedEnv = { ...process.env };

beforeAll(async () => {
  signingKey = await generateSigningKey('RS256');
  pepperKeys = `k1:${randomBytes(32).toString('base64')}`;
  fingerprintKey = randomBytes(32).toString('base64');
  mfaKeys = `m1:${randomBytes(32).toString('base64')}`;
  workDir = mkdtempSync(join(tmpdir(), 'passlane-iam-'));
  const publicKeys = JSON.stringify(publicJwks(await createKeyring(signingKey)));
  // The public keys as a deploy would pass them (--param), instead of the deploy-time SSM reference.
  // Two packagings side by side, each in its own directory.
  const packaged = (dir: string, parameters: Record<string, string>) => {
    mkdirSync(join(workDir, dir));
    return packageTemplateOnly(join(workDir, dir), { PASSLANE_JWT_PUBLIC_KEYS: publicKeys }, asParameters(parameters)) as Promise<Template>;
  };
  [template, explicitIdentityTemplate] = await Promise.all([
    packaged('derived-identity', { ...MAIL_PARAMETERS, ...EVENTS_ON, eventBus: EVENT_BUS }),
    packaged('explicit-identity', { ...MAIL_PARAMETERS, ...EVENTS_ON, eventBus: EVENT_BUS, sesIdentityArn: EXPLICIT_IDENTITY }),
  ]);
  const resolve = createResolver(template, PHYSICAL_IDS);
  roles = new Map(functionRoles(template, resolve).map((role) => [role.functionName, role]));
  // The CDK route: the construct with the same settings, its logical ids as osls names them, and
  // CloudFormation's generated log group names (the only names the two templates do not share).
  cdkProps = { bundleDirectory: placeholderBundles(join(workDir, 'bundles')), jwt: { publicKeys }, mail: CDK_MAIL, events: { enabled: true, signIn: true, busName: EVENT_BUS } };
  cdkRoles = cdkRolesFor('cdk.out', cdkProps);
  cdkExplicitIdentityRoles = cdkRolesFor('cdk-explicit.out', { ...cdkProps, mail: { ...CDK_MAIL, sesIdentityArn: EXPLICIT_IDENTITY } });
  keySchema = tableKeySchema(template, 'UsersTable');

  const parameters = functionEnvironment(template, 'login', resolve).variables;
  [dynamo, ssm, ses, bridge] = await Promise.all([
    startDynamoDbLocal(),
    startLocalSsmEndpoint({
      [parameters.PASSLANE_PEPPER_KEYS_PARAMETER!]: pepperKeys,
      [parameters.PASSLANE_JWT_PRIVATE_KEY_PARAMETER!]: JSON.stringify(signingKey),
      [parameters.PASSLANE_FINGERPRINT_KEY_PARAMETER!]: fingerprintKey,
      [parameters.PASSLANE_MFA_KEYS_PARAMETER!]: mfaKeys,
    }),
    startSesCapture(),
    startLocalEventBridgeEndpoint(),
  ]);
  awsEnv = {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDIAMCHECK',
    AWS_SECRET_ACCESS_KEY: 'local',
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    AWS_ENDPOINT_URL_SSM: ssm.endpoint,
    // SES v2 in the identity's region, answered locally (AWS itself is not reachable from tests).
    PASSLANE_SES_ENDPOINT: ses.endpoint,
    // EventBridge in the region, answered locally (the SDK's own variable).
    AWS_ENDPOINT_URL_EVENTBRIDGE: bridge.endpoint,
    // Any other AWS service a function might call fails at once instead of waiting for AWS.
    AWS_ENDPOINT_URL: `http://127.0.0.1:${await freePort()}`,
  };
  // Same region and key as the functions: DynamoDB Local keeps one database per pair.
  seedClient = new DynamoDBClient(dynamoDbClientConfig(readStorageConfig(awsEnv)));
  untracked.add(seedClient);
  await ensureTable(seedClient, TABLE);
  seedUsers = new AccountStore(seedClient, TABLE);
  recordAllAwsClients(keySchema, () => currentSink ?? { record: (request) => outsideInvocations.push(request) }, untracked);
}, 120_000);

afterAll(async () => {
  vi.restoreAllMocks();
  process.env = { ...savedEnv };
  seedClient?.destroy();
  await Promise.all([dynamo?.stop(), ssm?.stop(), ses?.stop(), bridge?.stop()]);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/**
 * A fresh container of `name`: fresh modules, the template's environment for it, secrets named as
 * SSM parameters (as deployed) or given as plain env. Calls made through `invoke` are recorded.
 */
async function container(name: Driven, options: { secrets: 'ssm' | 'plain'; env?: Record<string, string>; beforeSend?: CallSink['beforeSend']; recordInto?: AwsRequest[] }) {
  const { variables, lambdaName } = functionEnvironment(template, name, createResolver(template, PHYSICAL_IDS));
  const env: Record<string, string> = { ...awsEnv, ...variables, AWS_LAMBDA_FUNCTION_NAME: lambdaName, ...options.env };
  if (options.secrets === 'plain') {
    const values: Record<string, string> = {
      PASSLANE_PEPPER_KEYS: pepperKeys,
      PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(signingKey),
      PASSLANE_FINGERPRINT_KEY: fingerprintKey,
      PASSLANE_MFA_KEYS: mfaKeys,
    };
    for (const [variable, value] of Object.entries(values)) {
      if (env[`${variable}_PARAMETER`] === undefined) continue;
      delete env[`${variable}_PARAMETER`];
      env[variable] = value;
    }
  }
  vi.resetModules();
  process.env = { ...savedEnv, ...env };
  const handler = (await ENTRIES[name]()).handler as Handler;
  // A scenario on another template's roles keeps its calls apart from the packaged template's checks.
  const calls = options.recordInto ?? recorded.get(name) ?? [];
  if (options.recordInto === undefined) recorded.set(name, calls);
  const sink: CallSink = { record: (request) => calls.push(request), ...(options.beforeSend && { beforeSend: options.beforeSend }) };
  const invoke = async (event: unknown, context: Context = lambdaContext()) => {
    currentSink = sink;
    try {
      return await handler(event, context);
    } finally {
      currentSink = undefined;
    }
  };
  const http = async (method: string, path: string, body?: unknown, request: { sourceIp?: string; token?: string } = {}) => {
    const response = (await invoke(httpApiEvent(method, path, body, { ...request, sourceIp: request.sourceIp ?? randomIp(), apiId: 'iamcheck01' }))) as { statusCode: number; body: string };
    return { status: response.statusCode, body: response.body === '' ? undefined : (JSON.parse(response.body) as Record<string, unknown>) };
  };
  return { invoke, http, env };
}

const uniqueEmail = () => `iam-${randomUUID()}@example.test`;
const randomIp = () => `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

async function seedAccount(passwordHash = LEGACY.hash, options: { emailVerified?: boolean } = {}) {
  const email = uniqueEmail();
  const userId = randomUUID();
  await seedUsers.createUser({ email, userId, passwordHash, createdAt: new Date(), ...options });
  return { email, userId };
}

/** An identity at a provider for the account, as a federated sign-in leaves it: its lookup and the account's list. */
async function seedIdentity(email: string, userId: string) {
  const identities = new IdentityStore(seedClient, TABLE);
  const accountKey = createEmailFingerprint(new Uint8Array(Buffer.from(fingerprintKey, 'base64')))(email);
  const subject = randomUUID();
  await identities.claim('oidc', subject, { userId, email, accountKey }, new Date());
  await identities.record(accountKey, userId, { id: `oidc.${subject}`, provider: 'oidc', subject, linkedAt: 1 });
  return {
    gone: async () => (await identities.read('oidc', subject)) === undefined && (await identities.list(accountKey, userId)).length === 0,
    lookup: () => identities.read('oidc', subject),
  };
}

/** The mails SES was asked to send to `to`, oldest first. */
const mailsTo = (to: string) => ses.requests.filter((request) => request.body.Destination?.ToAddresses?.includes(to)).map((request) => request.body);

/** Passkeys on, as a deploy would set them (--param=webauthnRpId=..., webauthnOrigins=...): the template leaves them unset. */
const WEBAUTHN_ORIGIN = 'https://app.example.test';
const WEBAUTHN_ON = { PASSLANE_WEBAUTHN_RP_ID: 'example.test', PASSLANE_WEBAUTHN_ORIGINS: WEBAUTHN_ORIGIN };

/** The one-time token in the link of the last mail to `to` (`…#token=<token>`). */
function tokenMailedTo(to: string): string {
  const text = mailsTo(to).at(-1)?.Content?.Simple?.Body?.Text?.Data ?? '';
  const token = /#token=([^\s"<>]+)/.exec(text)?.[1];
  if (token === undefined) throw new Error('no link with a token in the last mail');
  return decodeURIComponent(token);
}

interface SignedIn {
  accessToken: string;
  refreshToken: string;
}

/** A session of a seeded account, started through the login function (whose calls count as login's). */
async function signIn(email: string): Promise<SignedIn> {
  const { http } = await container('login', { secrets: 'ssm' });
  const response = await http('POST', '/login', { email, password: LEGACY.password });
  expect(response.status).toBe(200);
  return response.body as unknown as SignedIn;
}

describe('each function, through its handler, as deployed', () => {
  it('register: a new account, a duplicate email (409), the per-source limit (429)', async () => {
    const { http } = await container('register', { secrets: 'ssm', env: { PASSLANE_LOGIN_LIMIT_PER_IP: String(LIMIT_PER_SOURCE) } });
    const email = uniqueEmail();
    expect((await http('POST', '/register', { email, password: NEW_PASSWORD })).status).toBe(201);
    const duplicate = await http('POST', '/register', { email: email.toUpperCase(), password: NEW_PASSWORD });
    expect(duplicate).toMatchObject({ status: 409, body: { error: { code: 'account_exists' } } });

    const sourceIp = randomIp();
    const statuses = [];
    for (let attempt = 0; attempt <= LIMIT_PER_SOURCE; attempt++) statuses.push((await http('POST', '/register', { email: uniqueEmail(), password: NEW_PASSWORD }, { sourceIp })).status);
    expect(statuses).toEqual([...Array(LIMIT_PER_SOURCE).fill(201), 429]);
  });

  it('register with email verification on: a new email and a taken one (both 202), each with its mail through SES', async () => {
    const { http } = await container('register', { secrets: 'ssm', env: VERIFICATION_ON });
    const email = uniqueEmail();
    expect(await http('POST', '/register', { email, password: NEW_PASSWORD })).toMatchObject({ status: 202, body: { status: 'accepted' } });
    expect((await seedUsers.getUserByEmail(email))?.emailVerified).toBe(false);
    expect(await http('POST', '/register', { email, password: NEW_PASSWORD })).toMatchObject({ status: 202, body: { status: 'accepted' } });
    // Sent as the identity the role allows, through the configured set.
    expect(mailsTo(email)).toEqual([
      expect.objectContaining({ FromEmailAddressIdentityArn: DERIVED_IDENTITY, ConfigurationSetName: 'passlane-events', EmailTags: [{ Name: 'passlane-kind', Value: 'email_verification' }] }),
      expect.objectContaining({ FromEmailAddressIdentityArn: DERIVED_IDENTITY, EmailTags: [{ Name: 'passlane-kind', Value: 'registration_attempt' }] }),
    ]);
  });

  it('login with a verified email required: a correct password on an unverified account (403) mails a new link', async () => {
    const { email } = await seedAccount(LEGACY.hash, { emailVerified: false });
    const { http } = await container('login', { secrets: 'ssm', env: VERIFICATION_ON });
    expect(await http('POST', '/login', { email, password: LEGACY.password })).toMatchObject({ status: 403, body: { error: { code: 'email_not_verified' } } });
    expect(mailsTo(email).map((mail) => mail.EmailTags)).toEqual([[{ Name: 'passlane-kind', Value: 'email_verification' }]]);
  });

  it('login with lazy migration: an email the old system knows becomes an account (a conditional PutItem)', async () => {
    const secret = randomBytes(32).toString('base64');
    const accounts = oldSystemAccounts();
    const email = uniqueEmail();
    accounts.add(email, LEGACY.password);
    const oldSystem = await startOldSystemServer({ secret, accounts });
    try {
      // The secret as plain env: its parameter's grant exists only where a migration URL is deployed
      // (test/cdk-construct.test.ts checks it in both templates).
      const { http } = await container('login', { secrets: 'ssm', env: { PASSLANE_MIGRATION_URL: oldSystem.url, PASSLANE_MIGRATION_SECRET: secret } });
      expect((await http('POST', '/login', { email, password: LEGACY.password })).status).toBe(200);
      expect((await seedUsers.getUserByEmail(email))?.passwordHash).toMatch(/^\$pepper\$/);
      expect(oldSystem.requests).toEqual([{ email, signature: 'valid' }]);
      // An outage opens the breaker (every failure then answers 503) ...
      oldSystem.behave({ status: 500 });
      expect((await http('POST', '/login', { email: uniqueEmail(), password: LEGACY.password })).status).toBe(503);
      // ... and, once its time is up, the next answer closes it (another container: its own view of it).
      oldSystem.behave({});
      await seedClient.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'migration#breaker' }, retryAt: { N: '1' }, expiresAt: { N: String(Math.floor(Date.now() / 1000) + 60) } } }));
      const next = await container('login', { secrets: 'ssm', env: { PASSLANE_MIGRATION_URL: oldSystem.url, PASSLANE_MIGRATION_SECRET: secret } });
      expect((await next.http('POST', '/login', { email: uniqueEmail(), password: LEGACY.password })).status).toBe(401);
    } finally {
      await oldSystem.stop();
    }
  });

  it('register with lazy migration: an email the old system holds is taken (409), a free one registers (201)', async () => {
    const secret = randomBytes(32).toString('base64');
    const accounts = oldSystemAccounts();
    const held = uniqueEmail();
    accounts.add(held, LEGACY.password);
    const free = uniqueEmail();
    const oldSystem = await startOldSystemServer({ secret, accounts });
    try {
      const { http } = await container('register', { secrets: 'ssm', env: { PASSLANE_MIGRATION_URL: oldSystem.url, PASSLANE_MIGRATION_SECRET: secret } });
      expect((await http('POST', '/register', { email: held, password: NEW_PASSWORD })).status).toBe(409);
      expect(await seedUsers.getUserByEmail(held)).toBeUndefined();
      expect((await http('POST', '/register', { email: free, password: NEW_PASSWORD })).status).toBe(201);
      expect(oldSystem.requests).toEqual([
        { email: held, question: 'exists', signature: 'valid' },
        { email: free, question: 'exists', signature: 'valid' },
      ]);
    } finally {
      await oldSystem.stop();
    }
  });

  describe.each(['ssm', 'plain'] as const)('login, secrets %s', (secrets) => {
    it('a wrong password, an outdated hash upgraded, a good login, an unknown email, the per-source limit', async () => {
      const { http } = await container('login', { secrets, env: { PASSLANE_LOGIN_LIMIT_PER_IP: String(LIMIT_PER_SOURCE) } });
      const { email } = await seedAccount();
      const login = (body: unknown, sourceIp = randomIp()) => http('POST', '/login', body, { sourceIp });

      // A failure first, so the good logins after it find something to reset.
      expect((await login({ email, password: LEGACY.wrongPassword })).status).toBe(401);
      expect((await login({ email, password: LEGACY.password })).status).toBe(200);
      expect((await seedUsers.getUserByEmail(email))?.passwordHash).not.toBe(LEGACY.hash); // upgraded
      expect((await login({ email, password: LEGACY.password })).status).toBe(200);
      expect((await login({ email: uniqueEmail(), password: LEGACY.password })).status).toBe(401);

      const sourceIp = randomIp();
      const statuses = [];
      for (let attempt = 0; attempt <= LIMIT_PER_SOURCE; attempt++) statuses.push((await login({ email: uniqueEmail(), password: LEGACY.password }, sourceIp)).status);
      expect(statuses).toEqual([...Array(LIMIT_PER_SOURCE).fill(401), 429]);
    });
  });

  it('password: a wrong current password (401), then a change (204) that ends the other session and voids a reset link', async () => {
    const { email } = await seedAccount();
    // Two sessions: the change keeps the one whose token made it and ends the other.
    const [own, other] = [await signIn(email), await signIn(email)];
    const recovery = await container('recovery', { secrets: 'ssm' });
    expect((await recovery.http('POST', '/password/reset', { email })).status).toBe(202);
    const resetLink = tokenMailedTo(email);
    const { http } = await container('password', { secrets: 'ssm' });
    const change = (currentPassword: string, token = own.accessToken) => http('POST', '/password', { currentPassword, newPassword: NEW_PASSWORD }, { token });

    expect((await change(LEGACY.wrongPassword)).status).toBe(401);
    expect((await change(LEGACY.password)).status).toBe(204);
    expect((await seedUsers.getUserByEmail(email))?.passwordChangedAt).toBeInstanceOf(Date);
    expect(await change(NEW_PASSWORD, other.accessToken)).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } }); // its session ended
    const sessions = await container('sessions', { secrets: 'ssm' });
    expect((await sessions.http('GET', '/sessions', undefined, { token: other.accessToken })).status).toBe(401);
    expect(await recovery.http('POST', '/password/reset/confirm', { token: resetLink, newPassword: 'what the mailbox reader wants' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_token' } },
    });
  });

  it('recovery: a reset request (known and unknown email), a wrong token, the confirm that ends every session', async () => {
    const { email } = await seedAccount();
    const session = await signIn(email);
    const { http } = await container('recovery', { secrets: 'ssm' });
    expect(await http('POST', '/password/reset', { email })).toMatchObject({ status: 202, body: { status: 'accepted' } });
    expect(await http('POST', '/password/reset', { email: uniqueEmail() })).toMatchObject({ status: 202, body: { status: 'accepted' } });
    const token = tokenMailedTo(email);

    // Right account, wrong secret: counted against the outstanding token.
    const wrong = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    expect(await http('POST', '/password/reset/confirm', { token: wrong, newPassword: NEW_PASSWORD })).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    expect((await http('POST', '/password/reset/confirm', { token, newPassword: NEW_PASSWORD })).status).toBe(204);
    expect((await http('POST', '/password/reset/confirm', { token, newPassword: NEW_PASSWORD })).status).toBe(400); // used
    expect((await seedUsers.getUserByEmail(email))?.passwordChangedAt).toBeInstanceOf(Date);
    const sessions = await container('sessions', { secrets: 'ssm' });
    expect((await sessions.http('GET', '/sessions', undefined, { token: session.accessToken })).status).toBe(401);
  });

  it('recovery: a new verification link for a signed-in unverified account (resend), then the email verified', async () => {
    const { email } = await seedAccount(LEGACY.hash, { emailVerified: false });
    const session = await signIn(email); // the template's login: verification not required
    const { http } = await container('recovery', { secrets: 'ssm' });
    expect(await http('POST', '/email/verify/resend', undefined, { token: session.accessToken })).toMatchObject({ status: 202, body: { status: 'accepted' } });
    expect((await http('POST', '/email/verify', { token: tokenMailedTo(email) })).status).toBe(204);
    expect((await seedUsers.getUserByEmail(email))?.emailVerified).toBe(true);
  });

  it('recovery: a device approval asked for (known and unknown email), refused without the asking client, used with it once', async () => {
    const { email } = await seedAccount();
    const { http } = await container('recovery', { secrets: 'ssm' });
    const asked = await http('POST', '/devices/approval', { email });
    expect(asked).toMatchObject({ status: 202, body: { status: 'accepted', clientSecret: expect.any(String) } });
    expect((await http('POST', '/devices/approval', { email: uniqueEmail() })).status).toBe(202);
    const token = tokenMailedTo(email);
    const confirm = (clientSecret?: unknown) => http('POST', '/devices/approval/confirm', { token, ...(clientSecret !== undefined && { clientSecret }) });
    expect(await confirm()).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } }); // counted against the approval
    expect(await confirm(asked.body!.clientSecret)).toMatchObject({ status: 200, body: { deviceToken: expect.any(String) } });
    expect((await confirm(asked.body!.clientSecret)).status).toBe(400); // used
  });

  it('token: a refresh (200), a token of no session (400), a spent one after the grace (400, the session ends)', async () => {
    const { email } = await seedAccount();
    const first = await signIn(email);
    // No grace, so the spent token coming back is reuse at once.
    const { http } = await container('token', { secrets: 'ssm', env: { PASSLANE_REFRESH_GRACE_S: '0' } });
    const refresh = (refreshToken: string) => http('POST', '/token', { grant_type: 'refresh_token', refresh_token: refreshToken });

    const second = await refresh(first.refreshToken);
    expect(second).toMatchObject({ status: 200, body: { refresh_token: expect.any(String) } });
    expect(await refresh('not-a-refresh-token')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await refresh(first.refreshToken)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await refresh(second.body!.refresh_token as string)).status).toBe(400); // ended with the reuse
  });

  it('sessions: the list, another session deleted, logout', async () => {
    const { email } = await seedAccount();
    const [own] = [await signIn(email), await signIn(email)];
    const { http } = await container('sessions', { secrets: 'ssm' });
    const token = own!.accessToken;

    const listed = await http('GET', '/sessions', undefined, { token });
    const ids = listed.body?.sessions as Array<{ id: string; current: boolean }>;
    expect(ids.map((session) => session.current).sort()).toEqual([false, true]);
    expect((await http('DELETE', `/sessions/${ids.find((session) => !session.current)!.id}`, undefined, { token })).status).toBe(204);
    expect((await http('POST', '/logout', undefined, { token })).status).toBe(204);
    expect((await http('GET', '/sessions', undefined, { token })).status).toBe(401);
  });

  it('mfa: enrol and confirm TOTP (the other password-only session ends), a login finished with a wrong code then a recovery code, new codes and removal by that login', async () => {
    const { email } = await seedAccount();
    const [session, other] = [await signIn(email), await signIn(email)];
    const { http } = await container('mfa', { secrets: 'ssm' });
    const token = session.accessToken;
    const enrolled = await http('POST', '/mfa/totp', undefined, { token });
    expect(enrolled.status).toBe(200);
    const secret = base32Bytes(new URL(enrolled.body!.otpauthUri as string).searchParams.get('secret')!);
    const codeAt = (offsetSteps: number) => totpCode(secret, Date.now(), offsetSteps);
    const confirmed = await http('POST', '/mfa/totp/confirm', { code: codeAt(0) }, { token });
    expect(confirmed).toMatchObject({ status: 200, body: { sessionsEnded: 1 } });
    const [recoveryCode] = confirmed.body!.recoveryCodes as string[];
    expect((await http('POST', '/mfa/recovery-codes', undefined, { token: other.accessToken })).status).toBe(401);

    const login = await container('login', { secrets: 'ssm' });
    const challenge = await login.http('POST', '/login', { email, password: LEGACY.password });
    expect(challenge).toMatchObject({ status: 401, body: { error: { code: 'mfa_required' } } });
    const finish = (method: string, code: string) => login.http('POST', '/login/mfa', { mfaToken: challenge.body!.mfaToken, method, code });
    expect(await finish('recovery_code', 'aaaa-aaaa-aaaa-aaaa')).toMatchObject({ status: 401, body: { error: { code: 'invalid_mfa_code' } } });
    const withFactor = await finish('recovery_code', recoveryCode!);
    expect(withFactor.status).toBe(200);

    // Only a login that used the factor changes it.
    expect(await http('POST', '/mfa/recovery-codes', undefined, { token })).toMatchObject({ status: 403, body: { error: { code: 'reauthentication_required' } } });
    const factorToken = withFactor.body!.accessToken as string;
    expect((await http('POST', '/mfa/recovery-codes', undefined, { token: factorToken })).status).toBe(200);
    // The next step's code: the confirm spent this one.
    expect((await http('DELETE', '/mfa/totp', { method: 'totp', code: codeAt(1) }, { token: factorToken })).status).toBe(204);
  });

  it('passkeys and passkeyLogin: registration, list, rename, passwordless logins (a failure, then good), a passkey at /login/mfa, removal, an unverified account', async () => {
    const { email } = await seedAccount(LEGACY.hash, { emailVerified: false });
    const session = await signIn(email); // the template's login: verification not required
    const passkeys = await container('passkeys', { secrets: 'ssm', env: WEBAUTHN_ON });
    const token = session.accessToken;
    const authenticator = softwareAuthenticator({ origin: WEBAUTHN_ORIGIN });
    const options = await passkeys.http('POST', '/passkeys/registration/options', undefined, { token });
    expect(options.status).toBe(200);
    const registered = await passkeys.http('POST', '/passkeys/registration', { response: await authenticator.register(options.body as never), name: 'Laptop' }, { token });
    expect(registered).toMatchObject({ status: 201, body: { recoveryCodes: expect.any(Array) } });
    const id = (registered.body!.passkey as { id: string }).id;
    expect(await passkeys.http('GET', '/passkeys', undefined, { token })).toMatchObject({ status: 200, body: { passkeys: [{ id, name: 'Laptop' }] } });
    expect(await passkeys.http('PATCH', `/passkeys/${id}`, { name: 'Work laptop' }, { token })).toMatchObject({ status: 403, body: { error: { code: 'reauthentication_required' } } });

    // A credential passlane does not know (the source's failure), a wrong origin (the account's), then a good login.
    const passkeyLogin = await container('passkeyLogin', { secrets: 'ssm', env: WEBAUTHN_ON });
    const loginOptions = async () => (await passkeyLogin.http('POST', '/passkey/login/options')).body as never;
    const stranger = softwareAuthenticator({ origin: WEBAUTHN_ORIGIN });
    await stranger.register({ ...(options.body as object), challenge: 'AAAAAAAAAAAAAAAAAAAAAA' } as never);
    const sourceIp = randomIp();
    const login = async (response: unknown) => passkeyLogin.http('POST', '/passkey/login', { response }, { sourceIp });
    expect(await login(await stranger.authenticate(await loginOptions()))).toMatchObject({ status: 401, body: { error: { code: 'invalid_passkey' } } });
    expect((await login(await authenticator.authenticate(await loginOptions(), { origin: 'https://evil.example.test' }))).status).toBe(401);
    const passwordless = await login(await authenticator.authenticate(await loginOptions()));
    expect(passwordless).toMatchObject({ status: 200, body: { accessToken: expect.any(String) } });
    expect((await passkeys.http('PATCH', `/passkeys/${id}`, { name: 'Work laptop' }, { token: passwordless.body!.accessToken as string })).status).toBe(200);

    // The password, then the passkey as the second factor; that login may remove the passkey, a password-only one may not.
    const passwordStep = await container('login', { secrets: 'ssm', env: WEBAUTHN_ON });
    const challenge = await passwordStep.http('POST', '/login', { email, password: LEGACY.password });
    expect(challenge).toMatchObject({ status: 401, body: { error: { code: 'mfa_required' }, methods: expect.arrayContaining(['webauthn']) } });
    const finished = await passwordStep.http('POST', '/login/mfa', { mfaToken: challenge.body!.mfaToken, method: 'webauthn', response: await authenticator.authenticate(challenge.body!.webauthn as never) });
    expect(finished.status).toBe(200);
    expect(await passkeys.http('DELETE', `/passkeys/${id}`, undefined, { token })).toMatchObject({ status: 403, body: { error: { code: 'reauthentication_required' } } });

    // With a verified email required, the right passkey of an unverified account: 403 and a new link by mail.
    const verifying = await container('passkeyLogin', { secrets: 'ssm', env: { ...WEBAUTHN_ON, ...VERIFICATION_ON } });
    const unverified = await verifying.http('POST', '/passkey/login', { response: await authenticator.authenticate((await verifying.http('POST', '/passkey/login/options')).body as never) });
    expect(unverified).toMatchObject({ status: 403, body: { error: { code: 'email_not_verified' } } });
    expect(mailsTo(email).at(-1)?.EmailTags).toEqual([{ Name: 'passlane-kind', Value: 'email_verification' }]);

    expect((await passkeys.http('DELETE', `/passkeys/${id}`, undefined, { token: finished.body!.accessToken as string })).status).toBe(204);
    expect(mailsTo(email).map((mail) => mail.EmailTags?.[0]?.Value)).toEqual(expect.arrayContaining(['mfa_changed']));
  });

  it('factorUndo: a passkey added by a password login, undone from its mail (a wrong token, then the link, then the link again)', async () => {
    const { email } = await seedAccount();
    const session = await signIn(email);
    const passkeys = await container('passkeys', { secrets: 'ssm', env: WEBAUTHN_ON });
    const authenticator = softwareAuthenticator({ origin: WEBAUTHN_ORIGIN });
    const options = await passkeys.http('POST', '/passkeys/registration/options', undefined, { token: session.accessToken });
    expect((await passkeys.http('POST', '/passkeys/registration', { response: await authenticator.register(options.body as never) }, { token: session.accessToken })).status).toBe(201);
    expect(mailsTo(email).at(-1)?.EmailTags).toEqual([{ Name: 'passlane-kind', Value: 'factor_added' }]);
    const undo = tokenMailedTo(email);

    const { http } = await container('factorUndo', { secrets: 'ssm' });
    expect(await http('POST', '/mfa/undo', { token: `${undo.split('.')[0]}.${'A'.repeat(43)}` })).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    expect(await http('POST', '/mfa/undo', { token: undo })).toMatchObject({ status: 200, body: { factorRemoved: true } });
    expect((await http('POST', '/mfa/undo', { token: undo })).status).toBe(400);
    expect(mailsTo(email).at(-1)?.EmailTags).toEqual([{ Name: 'passlane-kind', Value: 'password_reset' }]);
    expect((await seedUsers.getUserByEmail(email))?.passwordHash).toBe('!reset-required');
    const sessions = await container('sessions', { secrets: 'ssm' });
    expect((await sessions.http('GET', '/sessions', undefined, { token: session.accessToken })).status).toBe(401);
  });

  it('account: a deletion refused to a password-only session of an account with a passkey, then done by a passwordless login', async () => {
    const { email, userId } = await seedAccount();
    const session = await signIn(email);
    const passkeys = await container('passkeys', { secrets: 'ssm', env: WEBAUTHN_ON });
    const authenticator = softwareAuthenticator({ origin: WEBAUTHN_ORIGIN });
    const options = await passkeys.http('POST', '/passkeys/registration/options', undefined, { token: session.accessToken });
    expect((await passkeys.http('POST', '/passkeys/registration', { response: await authenticator.register(options.body as never) }, { token: session.accessToken })).status).toBe(201);
    const passkeyLogin = await container('passkeyLogin', { secrets: 'ssm', env: WEBAUTHN_ON });
    const loginOptions = (await passkeyLogin.http('POST', '/passkey/login/options')).body as never;
    const passwordless = await passkeyLogin.http('POST', '/passkey/login', { response: await authenticator.authenticate(loginOptions) }, { sourceIp: randomIp() });
    expect(passwordless.status).toBe(200);

    const identity = await seedIdentity(email, userId);

    const { http } = await container('account', { secrets: 'ssm' });
    expect(await http('DELETE', '/account', undefined, { token: session.accessToken })).toMatchObject({ status: 403, body: { error: { code: 'reauthentication_required' } } });
    expect((await http('DELETE', '/account', undefined, { token: String(passwordless.body!.accessToken) })).status).toBe(204);
    expect(mailsTo(email).at(-1)?.EmailTags).toEqual([{ Name: 'passlane-kind', Value: 'account_changed' }]);
    expect(await seedUsers.getUserByEmail(email)).toBeUndefined();
    expect(await identity.gone()).toBe(true);
  });

  it('emailChange: a change asked for by a passkey login, a wrong link, the link (the account, its factors and passkey moved), the old address\'s undo', async () => {
    const { email, userId } = await seedAccount();
    const session = await signIn(email);
    const passkeys = await container('passkeys', { secrets: 'ssm', env: WEBAUTHN_ON });
    const authenticator = softwareAuthenticator({ origin: WEBAUTHN_ORIGIN });
    const options = await passkeys.http('POST', '/passkeys/registration/options', undefined, { token: session.accessToken });
    expect((await passkeys.http('POST', '/passkeys/registration', { response: await authenticator.register(options.body as never) }, { token: session.accessToken })).status).toBe(201);
    const passkeyLogin = await container('passkeyLogin', { secrets: 'ssm', env: WEBAUTHN_ON });
    const loginOptions = await passkeyLogin.http('POST', '/passkey/login/options');
    const loggedIn = await passkeyLogin.http('POST', '/passkey/login', { response: await authenticator.authenticate(loginOptions.body as never) });
    expect(loggedIn.status).toBe(200);

    const identity = await seedIdentity(email, userId);
    const { http } = await container('emailChange', { secrets: 'ssm' });
    const newEmail = uniqueEmail();
    expect(await http('POST', '/email/change', { newEmail }, { token: loggedIn.body!.accessToken as string })).toMatchObject({ status: 202 });
    const link = tokenMailedTo(newEmail);
    expect(await http('POST', '/email/change/confirm', { token: `${link.split('.')[0]}.${'A'.repeat(43)}` })).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    expect(await http('POST', '/email/change/confirm', { token: link })).toMatchObject({ status: 204 });
    // Its identity at a provider follows it.
    expect((await identity.lookup())?.email).toBe(newEmail);
    expect((await seedUsers.getUserByEmail(newEmail))?.userId).toBe(userId);
    expect(await seedUsers.getUserByEmail(email)).toBeUndefined();
    expect(mailsTo(email).at(-1)?.EmailTags).toEqual([{ Name: 'passlane-kind', Value: 'email_changed' }]);
    expect(await http('POST', '/email/change/undo', { token: tokenMailedTo(email) })).toMatchObject({ status: 200, body: { emailRestored: true } });
    expect((await seedUsers.getUserByEmail(email))?.passwordHash).toBe('!reset-required');
    expect(mailsTo(email).at(-1)?.EmailTags).toEqual([{ Name: 'passlane-kind', Value: 'password_reset' }]);
  });

  it('federation: a new account through a provider, its identities, a second factor then due, an existing account linked after a password login, an identity removed', async () => {
    // The callbacks' URL: loopback, so the settings accept http; nothing listens there, the test delivers the callback.
    const publicUrl = 'http://127.0.0.1:9';
    const app = 'https://app.example.test';
    const oidc = await startOidcProvider({ redirectUris: [`${publicUrl}/oauth/oidc/callback`] });
    try {
      const providers = { oidc: { kind: 'oidc', issuer: oidc.issuer, clientId: oidc.clientId, scopes: ['openid', 'email'], redirectOrigins: [app] } };
      // The client secret as plain env (PASSLANE_OAUTH_SECRETS, spread as on Lambda): its parameter's grant exists only where one is deployed.
      const env = { PASSLANE_OAUTH_PROVIDERS: JSON.stringify(providers), PASSLANE_PUBLIC_URL: publicUrl, PASSLANE_OAUTH_SECRETS: JSON.stringify({ oidc: { clientSecret: oidc.clientSecret } }) };
      const federation = await container('federation', { secrets: 'ssm', env });
      const { http } = federation;
      type Raw = { statusCode: number; headers: Record<string, string>; cookies?: string[] };
      const signInWith = async (account: { sub: string; email: string }, { invoke, http } = federation) => {
        const get = async (path: string, query: string, cookies: string[] = []) =>
          (await invoke({ ...httpApiEvent('GET', path, undefined, { apiId: 'iamcheck01' }), rawQueryString: query, ...(cookies.length > 0 && { cookies }) })) as Raw;
        oidc.signInAs({ ...account, emailVerified: true });
        const verifier = oauth.generateRandomCodeVerifier();
        const query = new URLSearchParams({ redirect_to: `${app}/signed-in`, code_challenge: await oauth.calculatePKCECodeChallenge(verifier) });
        const started = await get('/oauth/oidc/start', query.toString());
        expect(started.statusCode).toBe(302);
        const back = await throughProvider(started.headers.location!, publicUrl);
        const called = await get('/oauth/oidc/callback', back.url.search.slice(1), [started.cookies![0]!.split(';')[0]!]);
        const code = new URL(called.headers.location!).searchParams.get('code');
        expect(code).not.toBeNull();
        return http('POST', '/oauth/token', { code, codeVerifier: verifier });
      };

      const newcomer = { sub: randomUUID(), email: uniqueEmail() };
      const first = await signInWith(newcomer);
      expect(first.status).toBe(200);
      const token = first.body!.accessToken as string;
      const listed = await http('GET', '/identities', undefined, { token });
      expect(listed).toMatchObject({ status: 200, body: { identities: [{ provider: 'oidc' }] } });
      // Its only way in: not removed.
      const only = (listed.body!.identities as { id: string }[])[0]!.id;
      expect((await http('DELETE', `/identities/${only}`, undefined, { token })).status).toBe(409);

      // A second factor on that account: the next federated login needs it.
      const mfa = await container('mfa', { secrets: 'ssm' });
      const enrolled = await mfa.http('POST', '/mfa/totp', undefined, { token });
      const secret = base32Bytes(new URL(enrolled.body!.otpauthUri as string).searchParams.get('secret')!);
      expect((await mfa.http('POST', '/mfa/totp/confirm', { code: totpCode(secret, Date.now(), 0) }, { token })).status).toBe(200);
      expect(await signInWith(newcomer)).toMatchObject({ status: 401, body: { error: { code: 'mfa_required' } } });

      // An account with a password and this email: linked only after its own login.
      const { email } = await seedAccount(LEGACY.hash, { emailVerified: true });
      const refused = await signInWith({ sub: randomUUID(), email });
      expect(refused).toMatchObject({ status: 409, body: { error: { code: 'identity_link_required' } } });
      const session = await signIn(email);
      const linked = await http('POST', '/identities/link', { linkToken: refused.body!.linkToken }, { token: session.accessToken });
      expect(linked.status).toBe(201);
      expect((await http('DELETE', `/identities/${linked.body!.id as string}`, undefined, { token: session.accessToken })).status).toBe(204);

      // A verified email required: an unverified account's identity (linked before it was) gets a new link by mail, not a session.
      const unverified = await seedAccount(LEGACY.hash, { emailVerified: false });
      const stranger = { sub: randomUUID(), email: unverified.email };
      const pending = await signInWith(stranger);
      expect(pending.status).toBe(409);
      expect((await http('POST', '/identities/link', { linkToken: pending.body!.linkToken }, { token: (await signIn(unverified.email)).accessToken })).status).toBe(201);
      const verifying = await container('federation', { secrets: 'ssm', env: { ...env, ...VERIFICATION_ON } });
      expect(await signInWith(stranger, verifying)).toMatchObject({ status: 403, body: { error: { code: 'email_not_verified' } } });
      expect(mailsTo(unverified.email)).toHaveLength(1);
    } finally {
      await oidc.stop();
    }
  });

  it('authorizer: a live session\'s token allowed, the same token denied after logout', async () => {
    const { email, userId } = await seedAccount();
    const { accessToken } = await signIn(email);
    // No cache, so the second call reads the ended session.
    const authorizer = await container('authorizer', { secrets: 'ssm', env: { PASSLANE_AUTHORIZER_CACHE_S: '0' } });
    const authorize = () => authorizer.invoke(httpApiAuthorizerEvent(`Bearer ${accessToken}`));

    expect(await authorize()).toEqual({ isAuthorized: true, context: { sub: userId, sid: expect.any(String) } });
    const sessions = await container('sessions', { secrets: 'ssm' });
    expect((await sessions.http('POST', '/logout', undefined, { token: accessToken })).status).toBe(204);
    expect(await authorize()).toEqual({ isAuthorized: false });
  });

  it('jwks and openidConfiguration (both discovery documents): the published keys, no AWS call', async () => {
    const jwks = await container('jwks', { secrets: 'ssm' });
    expect(await jwks.http('GET', '/.well-known/jwks.json')).toMatchObject({ status: 200, body: { keys: [{ kid: signingKey.kid }] } });
    const discovery = await container('openidConfiguration', { secrets: 'ssm' });
    expect(await discovery.http('GET', '/.well-known/openid-configuration')).toMatchObject({ status: 200, body: { jwks_uri: expect.any(String) } });
    expect(await discovery.http('GET', '/.well-known/oauth-authorization-server')).toMatchObject({ status: 200, body: { token_endpoint: expect.any(String) } });
  });

  it('admin (the operator API behind AWS_IAM): find, list, show, disable and enable, end sessions, remove TOTP and a passkey, send a reset, delete', async () => {
    const operator = 'arn:aws:sts::123456789012:assumed-role/Support/ada';
    const { email, userId } = await seedAccount();
    // A TOTP and a passkey, added by the owner through their functions, for the operator to remove.
    const session = await signIn(email);
    const mfa = await container('mfa', { secrets: 'ssm' });
    const enrolled = await mfa.http('POST', '/mfa/totp', undefined, { token: session.accessToken });
    const secret = base32Bytes(new URL(enrolled.body!.otpauthUri as string).searchParams.get('secret')!);
    expect((await mfa.http('POST', '/mfa/totp/confirm', { code: totpCode(secret, Date.now()) }, { token: session.accessToken })).status).toBe(200);
    const { invoke } = await container('admin', { secrets: 'ssm' });
    const call = async (method: string, path: string, options: { query?: string; principal?: string | null } = {}) => {
      const principal = options.principal === null ? {} : { iamPrincipal: options.principal ?? operator };
      const response = (await invoke(httpApiEvent(method, path, undefined, { ...principal, ...(options.query !== undefined && { query: options.query }), apiId: 'iamcheck01' }))) as { statusCode: number; body: string };
      return { status: response.statusCode, body: response.body === '' ? undefined : (JSON.parse(response.body) as Record<string, unknown>) };
    };

    expect(await call('GET', '/admin/users', { principal: null })).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
    expect(await call('GET', '/admin/users', { query: `email=${encodeURIComponent(email)}` })).toMatchObject({ status: 200, body: { userId, factors: { totp: true } } });
    expect(await call('GET', '/admin/users', { query: 'limit=2' })).toMatchObject({ status: 200, body: { users: expect.any(Array) } });
    expect(await call('GET', `/admin/users/${userId}`)).toMatchObject({ status: 200, body: { userId, email } });
    expect((await call('POST', `/admin/users/${userId}/disable`)).status).toBe(204);
    expect((await seedUsers.getUserByEmail(email))?.disabledBy).toBe(operator);
    expect((await call('POST', `/admin/users/${userId}/enable`)).status).toBe(204);
    expect((await call('POST', `/admin/users/${userId}/end-sessions`)).status).toBeLessThan(300);
    expect((await call('DELETE', `/admin/users/${userId}/factors/totp`)).status).toBeLessThan(300);
    // The password signs in again; a passkey from that session, for the operator to remove.
    const again = await signIn(email);
    const passkeys = await container('passkeys', { secrets: 'ssm', env: WEBAUTHN_ON });
    const authenticator = softwareAuthenticator({ origin: WEBAUTHN_ORIGIN });
    const options = await passkeys.http('POST', '/passkeys/registration/options', undefined, { token: again.accessToken });
    const registered = await passkeys.http('POST', '/passkeys/registration', { response: await authenticator.register(options.body as never), name: 'Laptop' }, { token: again.accessToken });
    expect(registered.status).toBe(201);
    const credentialId = (registered.body!.passkey as { id: string }).id;
    expect((await call('DELETE', `/admin/users/${userId}/passkeys/${credentialId}`)).status).toBeLessThan(300);
    expect((await call('POST', `/admin/users/${userId}/send-reset`)).status).toBeLessThan(300);
    expect(mailsTo(email).at(-1)?.EmailTags).toEqual([{ Name: 'passlane-kind', Value: 'password_reset' }]);
    const identity = await seedIdentity(email, userId);
    expect((await call('DELETE', `/admin/users/${userId}`)).status).toBe(204);
    expect(await seedUsers.getUserByEmail(email)).toBeUndefined();
    expect(await identity.gone()).toBe(true);
    expect(await call('GET', `/admin/users/${userId}`)).toMatchObject({ status: 404, body: { error: { code: 'user_not_found' } } });
  });

  it('events: a stream batch to the bus and a webhook, records of outboxes already delivered, a refusal retried, then dead-lettered', async () => {
    const secret = newWebhookSecret();
    const receiver = await startWebhookReceiver([secret]);
    try {
      // The webhooks as plain env: their parameter's grant exists only where one is deployed (test/cdk-construct.test.ts).
      const webhooks = JSON.stringify([{ name: 'crm', url: receiver.url, secrets: [secret] }]);
      const { invoke } = await container('events', { secrets: 'ssm', env: { PASSLANE_WEBHOOKS: webhooks, PASSLANE_EVENT_RETRY_BASE_MS: '10', PASSLANE_EVENT_MAX_ATTEMPTS: '2' } });
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      await appendToOutbox(seedClient, TABLE, someEvents(a, 2));
      await appendToOutbox(seedClient, TABLE, someEvents(b, 1));
      // Delivered: each outbox claimed, its events popped, counted per destination, the emptied outbox deleted.
      expect(await invoke(outboxStreamEvent([a, b, [a, 'MODIFY']]))).toEqual({ batchItemFailures: [] });
      expect(receiver.received.map((event) => event.accountId)).toEqual([a, a, b]);
      // The delivery's own writes ring again: nothing left (a refused claim, then one read).
      expect(await invoke(outboxStreamEvent([[a, 'MODIFY']]))).toEqual({ batchItemFailures: [] });
      // The bus refuses c's event: the attempt is recorded on the outbox and counted, and c's record reported.
      await appendToOutbox(seedClient, TABLE, someEvents(c, 1));
      bridge.behave({ kind: 'rejectEntries', code: 'InternalFailure' });
      try {
        const batch = outboxStreamEvent([c]);
        expect(await invoke(batch, lambdaContext(5_500))).toEqual({ batchItemFailures: [{ itemIdentifier: batch.Records[0]!.dynamodb!.SequenceNumber }] });
        // Its last attempt (PASSLANE_EVENT_MAX_ATTEMPTS): dead-lettered for the bus, and the outbox moves on.
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(await invoke(batch, lambdaContext(5_500))).toEqual({ batchItemFailures: [] });
      } finally {
        bridge.behave({ kind: 'accept' });
      }
      expect(bridge.accepted.filter((entry) => entry.Detail?.includes(c))).toEqual([]);
      expect(receiver.received.filter((event) => event.accountId === c)).toHaveLength(1);
    } finally {
      await receiver.stop();
    }
  });

  it('rehash: a pass that wraps legacy records, loses one to a concurrent change, and stores its cursor', async () => {
    const legacy = await Promise.all([seedAccount(), seedAccount(), seedAccount()]);
    const raced = await seedAccount();
    let changed = false;
    const { invoke } = await container('rehash', {
      secrets: 'ssm',
      // Just before the job's write to `raced`, a password change lands: its compare-and-swap
      // fails and the store re-reads the account (GetItem) to tell that from its own retry.
      beforeSend: async (requests) => {
        const [request] = requests;
        if (changed || request?.action !== 'dynamodb:UpdateItem' || request.leadingKeys?.[0] !== `user#${raced.email}`) return;
        changed = true;
        await seedUsers.replacePasswordHash({ email: raced.email, expectedHash: LEGACY.hash, newHash: OTHER_LEGACY.hash, reason: 'password-change' });
      },
    });
    const result = (await invoke({})) as { done: boolean; counts: Record<string, number> };
    expect(result.done).toBe(true);
    expect(result.counts.skipped_changed).toBe(1);
    expect(result.counts.wrapped).toBeGreaterThanOrEqual(legacy.length);
    for (const { email } of legacy) expect((await seedUsers.getUserByEmail(email))?.passwordHash).not.toBe(LEGACY.hash);
    expect(await new JobCursorStore(seedClient, TABLE).get('rehash')).toEqual(expect.any(String));
  });
});

describe('the calls against each function\'s role in the packaged template', () => {
  const names = LAMBDA_FUNCTIONS.map((fn) => fn.name);
  const driven = Object.keys(ENTRIES);
  /**
   * The function's recorded calls, and what Lambda does as its role for its event source mapping
   * (the events function's: reading the table's stream, describing failed batches in its
   * dead-letter queue), taken from the packaged template.
   */
  /** Unused grants, but for ListStreams on the stream: there for Lambda's check (LAMBDA_CHECKED_ONLY), checked just below. */
  const unused = (findings: Array<{ message: string }>) => findings.map((f) => f.message).filter((message) => !LAMBDA_CHECKED_ONLY.some((action) => message.includes(` grants ${action} on `)));

  it('events: ListStreams on the table\'s streams (and nothing else of it), as Lambda\'s check for a DynamoDB trigger asks, in both templates', () => {
    for (const role of [roles.get('events')!, cdkRoles.get('events')!]) {
      const statements = role.policies.flatMap((policy) => policy.policy.Statement);
      const listing = statements.filter((statement) => [statement.Action].flat().some((action) => LAMBDA_CHECKED_ONLY.includes(action)));
      expect(listing.map((statement) => statement.Resource)).toEqual([`arn:aws:dynamodb:eu-west-1:123456789012:table/${TABLE}/stream/*`]);
    }
    for (const name of LAMBDA_FUNCTIONS.map((fn) => fn.name).filter((n) => n !== 'events')) expect(JSON.stringify(roles.get(name)!.policies)).not.toContain('ListStreams');
  });

  const callsAsRole = (name: string): AwsRequest[] => [
    ...(recorded.get(name) ?? []),
    ...eventSourceRequests(template, name, createResolver(template, PHYSICAL_IDS)).map(({ action, arn }) => ({ action, operation: 'EventSourceMapping', resource: { type: 'arn' as const, arn } })),
  ];

  it('has expectations for every function, drives every function but bench, and saw no call outside an invocation', () => {
    expect(Object.keys(FUNCTION_ACCESS).sort()).toEqual([...names].sort());
    expect(names.filter((name) => !driven.includes(name))).toEqual(['bench']);
    expect(outsideInvocations.map((request) => request.action)).toEqual([]);
  });

  it.each(names)('%s: every recorded call is allowed by its role', async (name) => {
    const role = roles.get(name)!;
    const findings = await deniedRequests(role, callsAsRole(name));
    const suggestion = suggestedStatements(role, findings.flatMap((f) => f.requests ?? []), { [TABLE]: 'UsersTable' });
    const hint = `${name} made calls its role denies: stop making them, or allow them in its grants in packages/server/src/cdk/functions.ts (then npm run generate:infra writes ${role.roleId} in infra/iam-roles.yml), e.g.\n${suggestion}\n`;
    expect(findings.map((f) => f.message), hint).toEqual([]);
  });

  it.each(names)('%s: every recorded call is allowed by its role in the CDK template too', async (name) => {
    const role = cdkRoles.get(name)!;
    const findings = await deniedRequests(role, callsAsRole(name));
    const hint = `${name} made calls its CDK role denies: allow them in its grants in packages/server/src/cdk/functions.ts (the construct's roles and infra/iam-roles.yml both come from there)\n`;
    expect(findings.map((f) => f.message), hint).toEqual([]);
  });

  it.each(names)('%s: its CDK role grants nothing its calls do not use, and limits item grants to key prefixes', async (name) => {
    expect(unused(await unusedGrants(cdkRoles.get(name)!, callsAsRole(name)))).toEqual([]);
    expect(unconditionedItemGrants(cdkRoles.get(name)!).map((f) => f.message)).toEqual([]);
  });

  it.each(names)('%s: its role grants nothing its calls do not use', async (name) => {
    expect(unused(await unusedGrants(roles.get(name)!, callsAsRole(name)))).toEqual([]);
  });

  it.each(names)('%s: item-level grants are limited to key prefixes (dynamodb:LeadingKeys)', (name) => {
    expect(unconditionedItemGrants(roles.get(name)!).map((f) => f.message)).toEqual([]);
  });

  it.each(driven)('%s: its calls are the ones FUNCTION_ACCESS lists', (name) => {
    const { variables } = functionEnvironment(template, name, createResolver(template, PHYSICAL_IDS));
    // The variables that name what a call is on: SSM parameters, the SES identity and configuration set.
    const naming = Object.entries(variables).filter(([key, value]) => value !== '' && (key.endsWith('_PARAMETER') || key === 'PASSLANE_SES_IDENTITY_ARN' || key === 'PASSLANE_SES_CONFIGURATION_SET' || key === 'PASSLANE_EVENT_BUS'));
    expect(summarize(recorded.get(name) ?? [], Object.fromEntries(naming.map(([key, value]) => [value, key])))).toEqual([...FUNCTION_ACCESS[name]!].sort());
  });
});

describe('mail: the identity the functions send as is the one their roles allow', () => {
  const sesRequest = (arn: string): AwsRequest => {
    const kind = arn.includes(':configuration-set/') ? 'configuration-set' : 'identity';
    return { action: 'ses:SendEmail', operation: 'SendEmail', resource: { type: 'ses', kind, arn, name: arn } };
  };
  const MAIL_VARIABLES = ['PASSLANE_MAIL_FROM', 'PASSLANE_APP_URL', 'PASSLANE_SES_IDENTITY_ARN', 'PASSLANE_SES_CONFIGURATION_SET', 'PASSLANE_EMAIL_VERIFICATION', 'PASSLANE_REQUIRE_VERIFIED_EMAIL'];

  it('gives the mail settings to the functions that send and to no other', () => {
    const resolve = createResolver(template, PHYSICAL_IDS);
    for (const { name } of LAMBDA_FUNCTIONS) {
      const { variables } = functionEnvironment(template, name, resolve);
      const mail = Object.fromEntries(Object.entries(variables).filter(([key]) => MAIL_VARIABLES.includes(key)));
      if (!['register', 'login', 'mfa', 'passkeys', 'passkeyLogin', 'federation', 'factorUndo', 'account', 'recovery', 'emailChange', 'admin'].includes(name)) {
        expect(mail, name).toEqual({});
        continue;
      }
      expect(mail, name).toEqual({
        PASSLANE_MAIL_FROM: MAIL_PARAMETERS.mailFrom,
        PASSLANE_APP_URL: MAIL_PARAMETERS.appUrl,
        // Derived from the From address's domain, in the stack's region and account.
        PASSLANE_SES_IDENTITY_ARN: DERIVED_IDENTITY,
        PASSLANE_SES_CONFIGURATION_SET: MAIL_PARAMETERS.sesConfigurationSet,
        PASSLANE_EMAIL_VERIFICATION: 'false',
        PASSLANE_REQUIRE_VERIFIED_EMAIL: 'false',
      });
    }
  });

  it('with sesIdentityArn given: that identity, and the configuration set in its region (Serverless and CDK)', async () => {
    const resolve = createResolver(explicitIdentityTemplate, PHYSICAL_IDS);
    const explicitRoles = new Map(functionRoles(explicitIdentityTemplate, resolve).map((role) => [role.functionName, role]));
    const configurationSet = (region: string) => `arn:aws:ses:${region}:123456789012:configuration-set/passlane-events`;
    for (const name of ['register', 'login', 'recovery']) {
      expect(functionEnvironment(explicitIdentityTemplate, name, resolve).variables.PASSLANE_SES_IDENTITY_ARN).toBe(EXPLICIT_IDENTITY);
      for (const role of [explicitRoles.get(name)!, cdkExplicitIdentityRoles.get(name)!]) {
        expect(await deniedRequests(role, [sesRequest(EXPLICIT_IDENTITY), sesRequest(configurationSet('us-east-1'))])).toEqual([]);
        expect(await deniedRequests(role, [sesRequest(DERIVED_IDENTITY)])).toHaveLength(1);
        expect(await deniedRequests(role, [sesRequest(configurationSet('eu-west-1'))])).toHaveLength(1);
      }
    }
  });

  it('denies sending as another identity (a recipient\'s, as the SES sandbox asks), through another set, and from a function that sends nothing', async () => {
    const recovery = roles.get('recovery')!;
    expect(await deniedRequests(recovery, [sesRequest('arn:aws:ses:eu-west-1:123456789012:identity/someone@example.net')])).toHaveLength(1);
    expect(await deniedRequests(recovery, [sesRequest('arn:aws:ses:eu-west-1:123456789012:identity/example.test')])).toHaveLength(1);
    expect(await deniedRequests(recovery, [sesRequest('arn:aws:ses:eu-west-1:123456789012:configuration-set/other')])).toHaveLength(1);
    for (const name of ['password', 'token', 'sessions', 'authorizer']) expect(await deniedRequests(roles.get(name)!, [sesRequest(DERIVED_IDENTITY)])).toHaveLength(1);
  });
});

describe('hooks as Lambda functions: the Invoke each asking function makes, as its role in a deployment with the hooks allows', () => {
  const TOKEN_HOOK = 'claims-hook';
  const SIGNUP_HOOK = 'signup-rule';
  let api: LocalLambdaApi;
  let hookRoles: Map<string, FunctionRole>;
  let cdkHookRoles: Map<string, FunctionRole>;

  beforeAll(async () => {
    api = await startLocalLambdaApi({
      functions: {
        [TOKEN_HOOK]: { memorySizeMB: 128, handler: async () => ({ claims: { tenant: 't-iam' } }) },
        [SIGNUP_HOOK]: { memorySizeMB: 128, handler: async () => ({ allow: true }) },
      },
    });
    const publicKeys = JSON.stringify(publicJwks(await createKeyring(signingKey)));
    mkdirSync(join(workDir, 'hook-functions'));
    const hooksTemplate = (await packageTemplateOnly(
      join(workDir, 'hook-functions'),
      { PASSLANE_JWT_PUBLIC_KEYS: publicKeys },
      asParameters({ ...MAIL_PARAMETERS, tokenHookFunction: TOKEN_HOOK, signupHookFunction: SIGNUP_HOOK }),
    )) as Template;
    hookRoles = new Map(functionRoles(hooksTemplate, createResolver(hooksTemplate, PHYSICAL_IDS)).map((role) => [role.functionName, role]));
    cdkHookRoles = cdkRolesFor('cdk-hooks.out', { ...cdkProps, tokenHook: { functionName: TOKEN_HOOK }, signupHook: { functionName: SIGNUP_HOOK } });
  }, 120_000);
  afterAll(async () => api?.stop());

  it('register asks the sign-up hook, login both, token the token hook: each call allowed (Serverless and CDK), and by no role without the hook', async () => {
    // The Lambda API answered locally (AWS itself is not reachable from tests); the SDK's own endpoint setting.
    const env = { PASSLANE_TOKEN_HOOK_FUNCTION: TOKEN_HOOK, PASSLANE_SIGNUP_HOOK_FUNCTION: SIGNUP_HOOK, AWS_ENDPOINT_URL_LAMBDA: api.endpoint };
    const calls: Record<'register' | 'login' | 'token', AwsRequest[]> = { register: [], login: [], token: [] };
    const email = uniqueEmail();
    const register = await container('register', { secrets: 'ssm', env: { PASSLANE_SIGNUP_HOOK_FUNCTION: SIGNUP_HOOK, AWS_ENDPOINT_URL_LAMBDA: api.endpoint }, recordInto: calls.register });
    expect((await register.http('POST', '/register', { email, password: NEW_PASSWORD })).status).toBe(201);
    const login = await container('login', { secrets: 'ssm', env, recordInto: calls.login });
    const signedIn = await login.http('POST', '/login', { email, password: NEW_PASSWORD });
    expect(signedIn.status).toBe(200);
    expect(decodeJwt(String(signedIn.body!.accessToken)).tenant).toBe('t-iam');
    const token = await container('token', { secrets: 'ssm', env: { PASSLANE_TOKEN_HOOK_FUNCTION: TOKEN_HOOK, AWS_ENDPOINT_URL_LAMBDA: api.endpoint }, recordInto: calls.token });
    const refreshed = await token.http('POST', '/token', { grant_type: 'refresh_token', refresh_token: signedIn.body!.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(String(refreshed.body!.access_token)).tenant).toBe('t-iam');

    const invokes = (name: keyof typeof calls) => calls[name].filter((request) => request.action === 'lambda:InvokeFunction').map((request) => resourceArn(request));
    const arnOf = (fn: string) => `arn:aws:lambda:eu-west-1:123456789012:function:${fn}`;
    expect(invokes('register')).toEqual([arnOf(SIGNUP_HOOK)]);
    expect(invokes('login')).toEqual([arnOf(TOKEN_HOOK)]);
    expect(invokes('token')).toEqual([arnOf(TOKEN_HOOK)]);
    for (const name of ['register', 'login', 'token'] as const) {
      for (const role of [hookRoles.get(name)!, cdkHookRoles.get(name)!]) expect((await deniedRequests(role, calls[name])).map((f) => f.message)).toEqual([]);
      // Without the hook in the deployment, no role may invoke it.
      expect(await deniedRequests(roles.get(name)!, calls[name].filter((request) => request.action === 'lambda:InvokeFunction'))).toHaveLength(1);
    }
    // Only the functions that ask: no other role may invoke either hook.
    const tokenInvoke = calls.token.filter((request) => request.action === 'lambda:InvokeFunction');
    const signupInvoke = calls.register.filter((request) => request.action === 'lambda:InvokeFunction');
    for (const name of ['register', 'sessions', 'password', 'recovery', 'authorizer']) expect(await deniedRequests(hookRoles.get(name)!, tokenInvoke), name).toHaveLength(1);
    for (const name of ['token', 'passkeyLogin', 'sessions', 'password']) expect(await deniedRequests(hookRoles.get(name)!, signupInvoke), name).toHaveLength(1);
    for (const name of ['passkeyLogin', 'federation']) expect(await deniedRequests(hookRoles.get(name)!, tokenInvoke), name).toEqual([]);
    expect(await deniedRequests(hookRoles.get('federation')!, signupInvoke)).toEqual([]);
    expect(api.calls.filter((call) => call.route === 'invocations').map((call) => call.functionName)).toEqual([SIGNUP_HOOK, TOKEN_HOOK, TOKEN_HOOK]);
  }, 60_000);
});

describe('the check itself fails on what it is there to catch', () => {
  const request = (action: string, keys?: string[], resource: AwsRequest['resource'] = { type: 'table', table: TABLE }): AwsRequest => ({
    action,
    operation: action.split(':')[1]!,
    resource,
    ...(keys !== undefined && { leadingKeys: keys }),
  });

  it('denies a login UpdateItem outside its keys (job#rehash), naming the condition', async () => {
    const [finding, ...more] = await deniedRequests(roles.get('login')!, [request('dynamodb:UpdateItem', ['job#rehash'])]);
    expect(more).toEqual([]);
    expect(finding?.message).toMatch(
      `login: dynamodb:UpdateItem on arn:aws:dynamodb:eu-west-1:123456789012:table/${TABLE} (1 call) keys [job#rehash]: ` +
        "denied by the conditions of LoginRole's statement for it (LeadingKeys allowed: ",
    );
    expect(finding?.message).toContain('user#*');
  });

  it('denies the read a duplicate registration used to make (register has no GetItem), with raw keys redacted', async () => {
    const findings = await deniedRequests(roles.get('register')!, [request('dynamodb:GetItem', ['user#ada@example.com'])]);
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/^register: dynamodb:GetItem on \S+ \(1 call\) keys \[user#…\]: RegisterRole has no statement for this action on this resource/),
    ]);
    expect(findings[0]!.message).not.toContain('ada@example.com');
  });

  it('denies, in the CDK template too, the calls of a function whose description lost a grant', async () => {
    // login without its DeleteItem on failures#*: a good login ends the run of failures it follows.
    const withoutDelete = PASSLANE_FUNCTIONS.map((fn) =>
      fn.name === 'login' ? { ...fn, grants: fn.grants.filter((grant) => !(grant.kind === 'items' && grant.action === 'dynamodb:DeleteItem')) } : fn,
    );
    const login = cdkRolesFor('cdk-without-delete.out', cdkProps, withoutDelete).get('login')!;
    const findings = await deniedRequests(login, recorded.get('login') ?? []);
    // (and the close of lazy migration's breaker and the spent MFA tokens, which share that statement)
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/^login: dynamodb:DeleteItem on \S+ \(\d+ calls?\) keys \[failures#acct#…, migration#breaker, mfalogin#…\]: LoginRole has no statement/),
    ]);
  });

  it('keeps the events function to its bus, its queue, the table\'s stream and the outbox items', async () => {
    const events = roles.get('events')!;
    const arn = (action: string, target: string): AwsRequest => ({ action, operation: action.split(':')[1]!, resource: { type: 'arn', arn: target } });
    expect(await deniedRequests(events, [arn('events:PutEvents', 'arn:aws:events:eu-west-1:123456789012:event-bus/team-events')])).toEqual([]);
    expect(await deniedRequests(events, [arn('events:PutEvents', 'arn:aws:events:eu-west-1:123456789012:event-bus/default')])).toHaveLength(1);
    expect(await deniedRequests(events, [arn('dynamodb:GetRecords', `arn:aws:dynamodb:eu-west-1:123456789012:table/${TABLE}/stream/2026-02-02T00:00:00.000`)])).toEqual([]);
    expect(await deniedRequests(events, [arn('dynamodb:GetRecords', 'arn:aws:dynamodb:eu-west-1:123456789012:table/other/stream/2026-02-02T00:00:00.000')])).toHaveLength(1);
    expect(await deniedRequests(events, [arn('sqs:SendMessage', 'arn:aws:sqs:eu-west-1:123456789012:some-other-queue')])).toHaveLength(1);
    for (const key of ['user#a@example.com', 'sessions#0123456789abcdef', 'outboxes#x']) expect(await deniedRequests(events, [request('dynamodb:GetItem', [key])])).toHaveLength(1);
    // The outbox is the events function's alone among the functions that deliver nothing else.
    for (const name of ['login', 'token', 'sessions', 'authorizer', 'rehash']) expect(await deniedRequests(roles.get(name)!, [arn('events:PutEvents', 'arn:aws:events:eu-west-1:123456789012:event-bus/team-events')])).toHaveLength(1);
  });

  it('prints keys only as their kind', () => {
    expect(['user#ada@example.com', 'failures#acct#deadbeefcafebabe#src#10.0.0.1', 'ratelimit#login#ip#2001:db8::#1700000000', 'job#rehash'].map(keyKind)).toEqual([
      'user#…',
      'failures#acct#…',
      'ratelimit#login#ip#…',
      'job#rehash',
    ]);
  });

  it('denies a batch with one key outside the allowed prefixes (ForAllValues), and suggests the missing statement', async () => {
    const login = roles.get('login')!;
    const batch = request('dynamodb:BatchGetItem', ['user#a@example.com', 'job#rehash']);
    expect(await deniedRequests(login, [batch])).toHaveLength(1);
    expect(suggestedStatements(login, [batch], { [TABLE]: 'UsersTable' })).toBe(
      "  - { Effect: Allow, Action: dynamodb:BatchGetItem, Resource: !GetAtt UsersTable.Arn, Condition: { ForAllValues:StringLike: { dynamodb:LeadingKeys: ['job#*', 'user#*'] } } }",
    );
    const put = request('dynamodb:PutItem', ['user#a@example.com', 'job#rehash']);
    expect(await deniedRequests(roles.get('register')!, [put])).toHaveLength(1);
    expect(await deniedRequests(roles.get('register')!, [request('dynamodb:PutItem', ['user#a@example.com'])])).toEqual([]);
  });

  it('lets register and login write verification tokens only, never a reset token (that would reset any password)', async () => {
    for (const name of ['register', 'login']) {
      const role = roles.get(name)!;
      expect(await deniedRequests(role, [request('dynamodb:PutItem', ['token#verify#0123456789abcdef'])])).toEqual([]);
      expect(await deniedRequests(role, [request('dynamodb:PutItem', ['token#reset#0123456789abcdef'])])).toHaveLength(1);
    }
  });

  it('lets password void one-time tokens, never write one', async () => {
    const password = roles.get('password')!;
    const deletes = ['token#reset#0123456789abcdef', 'token#verify#0123456789abcdef'].map((key) => request('dynamodb:DeleteItem', [key]));
    expect(await deniedRequests(password, deletes)).toEqual([]);
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem']) expect(await deniedRequests(password, [request(action, ['token#reset#0123456789abcdef'])])).toHaveLength(1);
  });

  it('denies a parameter the role does not name, and the signing key to register', async () => {
    const parameter = (name: string) => request('ssm:GetParameter', undefined, { type: 'parameter', name });
    expect(await deniedRequests(roles.get('login')!, [parameter('/passlane/dev/other')])).toHaveLength(1);
    expect(await deniedRequests(roles.get('register')!, [parameter('/passlane/dev/jwt-private-key')])).toHaveLength(1);
    expect(await deniedRequests(roles.get('jwks')!, [parameter('/passlane/dev/pepper-keys')])).toHaveLength(1);
  });

  it('reports a grant no call uses (per key prefix), and an item grant without LeadingKeys', async () => {
    const table = `arn:aws:dynamodb:eu-west-1:123456789012:table/${TABLE}`;
    const keys = (...patterns: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns } });
    const example: FunctionRole = {
      functionName: 'example',
      roleId: 'ExampleRole',
      principal: 'arn:aws:sts::123456789012:assumed-role/ExampleRole/example',
      policies: [
        {
          name: 'example',
          policy: {
            Version: '2012-10-17',
            Statement: [
              { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: table, Condition: keys('user#*') },
              { Effect: 'Allow', Action: 'dynamodb:UpdateItem', Resource: table, Condition: keys('ratelimit#*', 'user#*') },
              { Effect: 'Allow', Action: 'dynamodb:DeleteItem', Resource: table },
            ],
          },
        },
      ],
    };
    const calls = [request('dynamodb:GetItem', ['user#a@example.com']), request('dynamodb:UpdateItem', ['user#a@example.com'])];
    expect((await unusedGrants(example, calls)).map((f) => f.message)).toEqual([
      `example: ExampleRole grants dynamodb:UpdateItem on ${table} on keys ratelimit#*, which no recorded call used`,
      `example: ExampleRole grants dynamodb:DeleteItem on ${table}, which no recorded call used`,
    ]);
    expect(unconditionedItemGrants(example).map((f) => f.message)).toEqual([expect.stringContaining('ExampleRole grants dynamodb:DeleteItem')]);
  });
});
