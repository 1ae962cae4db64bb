/**
 * The deployment package, built as `npm run package` builds it, for both architectures: the
 * CloudFormation template osls writes (resources, IAM per function, no secret values) and the
 * zips (the right CPU's binaries; the x86_64 ones actually answering register and login against
 * DynamoDB Local), and the CDK construct deploying those very zips. Packaging runs once per
 * architecture, one after the other, in beforeAll.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ELF_MACHINE, LAMBDA_ARCHITECTURES, NPM_CPU, type LambdaArchitecture } from '../scripts/packaging/architectures.js';
import { elfMachine } from '../scripts/packaging/elf-machine.js';
import { BUNDLE_FILE, LAMBDA_FUNCTIONS } from '../scripts/packaging/lambda-functions.js';
import { readStorageConfig } from '../packages/server/src/config/storage-config.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable, tableDefinition } from '../packages/server/src/storage/table.js';
import { createKeyring, generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { publicJwks } from '../packages/server/src/features/tokens/jwks.js';
import { BLOCKLIST_FORMAT } from '../packages/server/src/features/password/rules/blocklist-format.js';
import { startDynamoDbLocal, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { startLocalSsmEndpoint } from './support/local-ssm-endpoint.js';
import { startSesCapture } from './support/ses-capture.js';
import { actionsOf, FUNCTION_ACCESS, parameterVariablesOf, sendsMail } from './support/function-access.js';
import { startOidcProvider } from './support/oidc-provider.js';
import { throughProvider } from './support/provider-browser.js';
import { createResolver, functionRoles, type Template as ResolvableTemplate } from './support/iam/template-roles.js';
import { coldImportMs, readZip, repoRoot, runPackaging, unpackZip } from './support/packaging.js';
import { queueNames, synthConstruct } from './support/deploy-templates.js';
import { httpApiAuthorizerEvent } from './support/authorizer-events.js';
import { httpApiEvent } from './support/http-api-event.js';
import { lambdaContext } from './support/lambda-context.js';
import { startLocalEventBridgeEndpoint } from './support/local-eventbridge-endpoint.js';
import { appendToOutbox, someEvents } from './support/outbox-append.js';
import { outboxStreamEvent } from './support/outbox-stream-event.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: unknown; DeletionPolicy?: string };
type Template = { Resources: Record<string, Resource>; Outputs?: Record<string, unknown> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, string[]>> };

const HASHER_FUNCTIONS = ['register', 'login', 'password', 'recovery', 'rehash', 'bench'];
/** Where a password is set, so the common-password blocklist ships (src/passwords); nowhere else, the login least of all. */
const BLOCKLIST_FUNCTIONS = ['register', 'password', 'recovery'];
const ROUTES: Record<string, string[]> = {
  register: ['POST /register'],
  login: ['POST /login', 'POST /login/mfa'],
  token: ['POST /token'],
  sessions: ['POST /logout', 'GET /sessions', 'DELETE /sessions/{id}', 'DELETE /devices/{id}'],
  mfa: ['POST /mfa/totp', 'POST /mfa/totp/confirm', 'POST /mfa/recovery-codes', 'DELETE /mfa/totp'],
  passkeys: ['POST /passkeys/registration/options', 'POST /passkeys/registration', 'GET /passkeys', 'PATCH /passkeys/{id}', 'DELETE /passkeys/{id}'],
  passkeyLogin: ['POST /passkey/login/options', 'POST /passkey/login'],
  federation: ['GET /oauth/{provider}/start', 'GET /oauth/{provider}/callback', 'POST /oauth/{provider}/callback', 'POST /oauth/token', 'GET /identities', 'DELETE /identities/{id}', 'POST /identities/link'],
  factorUndo: ['POST /mfa/undo'],
  account: ['DELETE /account'],
  emailChange: ['POST /email/change', 'POST /email/change/confirm', 'POST /email/change/undo'],
  password: ['POST /password'],
  recovery: ['POST /password/reset', 'POST /password/reset/confirm', 'POST /email/verify', 'POST /email/verify/resend', 'POST /devices/approval', 'POST /devices/approval/confirm'],
  jwks: ['GET /.well-known/jwks.json'],
  openidConfiguration: ['GET /.well-known/openid-configuration', 'GET /.well-known/oauth-authorization-server'],
};
/** The operator API's routes: behind AWS_IAM, and without preflights (infra/README.md, "Operator API"). */
const IAM_ROUTES: Record<string, string[]> = {
  admin: [
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
};
/**
 * Table, SSM and SES actions per function (logs are checked separately) and the variables naming
 * the parameters each reads, from the one list of what each function calls. Keys and call by
 * call: test/iam-permissions.test.ts.
 */
const ACTIONS: Record<string, string[]> = Object.fromEntries(Object.keys(FUNCTION_ACCESS).map((name) => [name, actionsOf(name)]));
const SECRET_PARAMETERS: Record<string, string[]> = Object.fromEntries(Object.keys(FUNCTION_ACCESS).map((name) => [name, parameterVariablesOf(name)]));
/**
 * Functions whose only secret is an optional one, absent from `npm run package`'s template: the
 * events function's webhooks (its SSM client is bundled, and its role may decrypt through SSM
 * with a customer-managed key, for when the parameter is given).
 */
const OPTIONAL_SECRET_ONLY = ['events'];
/** Actions whose statement is there only when a setting is given (none is while packaging): the bus the events function publishes to. */
const CONDITIONAL_ACTIONS: Record<string, string[]> = { events: ['events:PutEvents'] };
/** What Lambda does as the role of a function the table's stream invokes: read the stream, describe failed batches in the function's dead-letter queue. */
const LAMBDA_AS_ROLE: Record<string, string[]> = { events: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams', 'sqs:SendMessage'] };

/** Functions given the published keys: those that publish them, those that check they sign with the first, and the authorizer, which verifies with them. */
const PUBLIC_KEYS_FUNCTIONS = ['login', 'token', 'sessions', 'mfa', 'passkeys', 'passkeyLogin', 'federation', 'account', 'password', 'recovery', 'emailChange', 'jwks', 'openidConfiguration', 'authorizer'];
/** What functions that send mail are given (serverless.yml, custom.mailEnvironment), and no other function. */
const MAIL_VARIABLES = ['PASSLANE_MAIL_FROM', 'PASSLANE_APP_URL', 'PASSLANE_SES_IDENTITY_ARN', 'PASSLANE_SES_CONFIGURATION_SET', 'PASSLANE_EMAIL_VERIFICATION', 'PASSLANE_REQUIRE_VERIFIED_EMAIL'];
/**
 * Zips with the SES client's chunk: those whose code can send (the client is imported on the
 * first send, so it is never parsed at a cold start), and password, which wires the same auth
 * dependencies as login (mail included, built on first use) but never sends and may not.
 */
const SES_CHUNK_FUNCTIONS = ['register', 'login', 'mfa', 'passkeys', 'passkeyLogin', 'federation', 'factorUndo', 'account', 'password', 'recovery', 'emailChange', 'admin'];

/** A message of @simplewebauthn/server's assertion check: where it is, the library is. */
const WEBAUTHN_MARKER = 'Unexpected authentication response challenge';

const pepperKey = randomBytes(32).toString('base64');
const fingerprintKey = randomBytes(32).toString('base64');
let signingKey: JWK;
/** The signing key's public half as a JWKS, as infra/README.md derives it. */
let publicKeys: string;
let workDir: string;
const templates = {} as Record<LambdaArchitecture, Template>;
const zipsDir = (arch: LambdaArchitecture) => join(repoRoot, '.package', arch);
const logicalId = (name: string) => name[0]!.toUpperCase() + name.slice(1);

beforeAll(async () => {
  signingKey = await generateSigningKey('RS256');
  publicKeys = JSON.stringify(publicJwks(await createKeyring(signingKey)));
  workDir = mkdtempSync(join(tmpdir(), 'passlane-package-'));
  // Set as the packaging process's env: if the config ever read them, they would show up below.
  const secrets = {
    PASSLANE_PEPPER_KEYS: `k1:${pepperKey}`,
    PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(signingKey),
    PASSLANE_FINGERPRINT_KEY: fingerprintKey,
  };
  const started = performance.now();
  // One at a time: each `serverless package` works in the service directory, and two at once race there.
  // Twenty functions bundled twice on 2 cores: over a minute alone, more on a busy machine.
  // arm64 is given the public keys directly; x86_64 is packaged bare, as `npm run package` is, and
  // gets the deploy-time SSM reference instead.
  for (const arch of LAMBDA_ARCHITECTURES) {
    const publicKeysEnv: Record<string, string> = arch === 'arm64' ? { PASSLANE_JWT_PUBLIC_KEYS: publicKeys } : {};
    await runPackaging(arch, join(workDir, arch), { ...secrets, ...publicKeysEnv });
  }
  console.log(`packaged both architectures in ${Math.round(performance.now() - started)} ms`);
  for (const arch of LAMBDA_ARCHITECTURES) {
    templates[arch] = JSON.parse(readFileSync(join(workDir, arch, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
  }
}, 300_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe.each(LAMBDA_ARCHITECTURES)('template for %s', (arch) => {
  const template = () => templates[arch];
  const resource = (id: string) => {
    const found = template().Resources[id];
    if (found === undefined) throw new Error(`no resource ${id}`);
    return found;
  };

  it('packages exactly the functions in functions/*.ts', () => {
    const entries = readdirSync(join(repoRoot, 'functions')).filter((file) => file.endsWith('.ts'));
    expect(LAMBDA_FUNCTIONS.map((fn) => fn.entry).sort()).toEqual(entries.map((file) => `functions/${file}`).sort());
    const functions = Object.entries(template().Resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
    expect(functions.map(([id]) => id).sort()).toEqual(LAMBDA_FUNCTIONS.map((fn) => `${logicalId(fn.name)}LambdaFunction`).sort());
  });

  it.each(LAMBDA_FUNCTIONS.map((fn) => fn.name))('%s: runtime, architecture, its zip, its own role', (name) => {
    const props = resource(`${logicalId(name)}LambdaFunction`).Properties;
    expect(props.Runtime).toBe('nodejs22.x');
    expect(props.Architectures).toEqual([arch]);
    expect(props.Handler).toBe(`${BUNDLE_FILE.replace(/\.mjs$/, '')}.handler`);
    expect((props.Code as { S3Key: string }).S3Key).toMatch(new RegExp(`/${name}\\.zip$`));
    expect(props.Role).toEqual({ 'Fn::GetAtt': [`${logicalId(name)}Role`, 'Arn'] });
    // The rehash job's cursor allows one run at a time.
    if (name === 'rehash') expect(props.ReservedConcurrentExecutions).toBe(1);
  });

  it('routes only the HTTP functions, without CORS, with stage throttling', () => {
    const routes = Object.values(template().Resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route');
    // Each path's OPTIONS too: the functions answer preflights themselves (infra/README.md, "HTTP API").
    const preflights = [...new Set(Object.values(ROUTES).flat().map((route) => `OPTIONS ${route.split(' ')[1]!}`))];
    const operatorRoutes = Object.values(IAM_ROUTES).flat();
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual([...Object.values(ROUTES).flat(), ...preflights, ...operatorRoutes].sort());
    // Passlane's own routes check tokens themselves: no authorizer in front of them. The operator API's: AWS_IAM.
    for (const route of routes) {
      expect(route.Properties.AuthorizationType, route.Properties.RouteKey as string).toBe(operatorRoutes.includes(route.Properties.RouteKey as string) ? 'AWS_IAM' : undefined);
    }
    const permissions = Object.keys(template().Resources).filter((id) => id.endsWith('LambdaPermissionHttpApi'));
    expect(permissions.sort()).toEqual([...Object.keys(ROUTES), ...Object.keys(IAM_ROUTES)].map((name) => `${logicalId(name)}LambdaPermissionHttpApi`).sort());
    expect(resource('HttpApi').Properties.CorsConfiguration).toBeUndefined();
    const settings = resource('HttpApiStage').Properties.DefaultRouteSettings as Record<string, number>;
    expect(settings.ThrottlingRateLimit).toBeGreaterThan(0);
    expect(settings.ThrottlingBurstLimit).toBeGreaterThan(0);
  });

  it('offers the team\'s routes both authorizers: the JWT one (no call) and the authorizer function (session live)', () => {
    const variables = (name: string) => (resource(`${logicalId(name)}LambdaFunction`).Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const authorizers = Object.entries(template().Resources).filter(([, r]) => r.Type === 'AWS::ApiGatewayV2::Authorizer');
    expect(authorizers.map(([id]) => id).sort()).toEqual(['HttpApiAuthorizerPasslaneJwt', 'HttpApiAuthorizerPasslaneSession']);
    expect(resource('HttpApiAuthorizerPasslaneJwt').Properties).toEqual({
      ApiId: { Ref: 'HttpApi' },
      Name: 'passlaneJwt',
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      // The tokens' own iss and aud, as login issues them.
      JwtConfiguration: { Issuer: variables('login').PASSLANE_JWT_ISSUER, Audience: ['passlane-api'] },
    });
    expect(resource('HttpApiAuthorizerPasslaneSession').Properties).toMatchObject({
      Name: 'passlaneSession',
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      IdentitySource: ['$request.header.Authorization'],
      AuthorizerResultTtlInSeconds: 0,
    });
    expect(JSON.stringify(resource('HttpApiAuthorizerPasslaneSession').Properties.AuthorizerUri)).toContain('AuthorizerLambdaFunction');
    expect(resource('PasslaneSessionLambdaAuthorizerPermissionHttpApi').Properties).toMatchObject({
      FunctionName: { 'Fn::GetAtt': ['AuthorizerLambdaFunction', 'Arn'] },
      Principal: 'apigateway.amazonaws.com',
    });
    // Its verdict cache, per container.
    expect(variables('authorizer').PASSLANE_AUTHORIZER_CACHE_S).toBe('5');
  });

  it('keeps every log group 30 days', () => {
    const groups = Object.values(template().Resources).filter((r) => r.Type === 'AWS::Logs::LogGroup');
    expect(groups.length).toBe(LAMBDA_FUNCTIONS.length + 1); // + HTTP API access logs
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(30);
  });

  it('defines the table as packages/server/src/storage/table.ts does, with TTL, PITR and deletion protection', () => {
    const table = resource('UsersTable');
    const definition = tableDefinition('unused');
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: definition.AttributeDefinitions,
      KeySchema: definition.KeySchema,
      GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes,
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
  });

  it.each(LAMBDA_FUNCTIONS.map((fn) => fn.name))('%s: IAM allows exactly its own calls', (name) => {
    const roles = Object.values(template().Resources).filter((r) => r.Type === 'AWS::IAM::Role');
    expect(roles).toHaveLength(LAMBDA_FUNCTIONS.length); // no shared default role
    const policies = resource(`${logicalId(name)}Role`).Properties.Policies as { PolicyDocument: { Statement: unknown[] } }[];
    expect(policies).toHaveLength(1);
    const all = policies[0]!.PolicyDocument.Statement;
    // Statements that exist only under a condition: the customer-managed key's, sending mail
    // (none without a sender configured), and the lazy migration login and register ask
    // (invoking the configured function, reading its secret).
    const conditional = all.filter((s): s is { 'Fn::If': [string, Statement, unknown] } => typeof s === 'object' && s !== null && 'Fn::If' in s);
    const kms = conditional.filter((s) => s['Fn::If'][0] === 'HasSecretsKmsKey');
    const mail = conditional.filter((s) => s['Fn::If'][0] === 'SendsMail');
    const migration = conditional.filter((s) => ['HasMigrationFunction', 'HasMigrationSecretParameter'].includes(s['Fn::If'][0]));
    // The sign-in providers' secrets, read by the federation function only when a parameter is given.
    const oauthSecrets = conditional.filter((s) => s['Fn::If'][0] === 'HasOauthSecretsParameter');
    // Account events: PutEvents on the bus, the webhooks' parameter, each only when given.
    const events = conditional.filter((s) => ['HasEventBus', 'HasWebhooksParameter'].includes(s['Fn::If'][0]));
    // The hooks (packages/server/src/hooks): the token hook where tokens are minted, the sign-up hook where accounts are made, each only when given.
    const hooks = conditional.filter((s) => /^Has(Token|Signup)Hook(Function|SecretsParameter)$/.test(s['Fn::If'][0]));
    expect(conditional).toHaveLength(kms.length + mail.length + migration.length + oauthSecrets.length + events.length + hooks.length);
    const tokenHook = ['login', 'token', 'passkeyLogin', 'federation'].includes(name);
    const signupHook = ['register', 'login', 'federation'].includes(name);
    expect(hooks.map((s) => [s['Fn::If'][0], s['Fn::If'][1].Action, s['Fn::If'][2]]).sort()).toEqual(
      [
        ...(tokenHook ? [['HasTokenHookSecretsParameter', 'ssm:GetParameter'], ['HasTokenHookFunction', 'lambda:InvokeFunction']] : []),
        ...(signupHook ? [['HasSignupHookSecretsParameter', 'ssm:GetParameter'], ['HasSignupHookFunction', 'lambda:InvokeFunction']] : []),
      ]
        .map(([condition, action]) => [condition, action, { Ref: 'AWS::NoValue' }])
        .sort(),
    );
    expect(events.map((s) => [s['Fn::If'][0], s['Fn::If'][1].Action, s['Fn::If'][2]])).toEqual(
      name === 'events'
        ? [
            ['HasEventBus', 'events:PutEvents', { Ref: 'AWS::NoValue' }],
            ['HasWebhooksParameter', 'ssm:GetParameter', { Ref: 'AWS::NoValue' }],
          ]
        : [],
    );
    expect(oauthSecrets.map((s) => [s['Fn::If'][1].Action, s['Fn::If'][2]])).toEqual(name === 'federation' ? [['ssm:GetParameter', { Ref: 'AWS::NoValue' }]] : []);
    expect(migration.map((s) => [s['Fn::If'][0], s['Fn::If'][1].Action, s['Fn::If'][2]])).toEqual(
      name === 'login' || name === 'register'
        ? [
            ['HasMigrationSecretParameter', 'ssm:GetParameter', { Ref: 'AWS::NoValue' }],
            ['HasMigrationFunction', 'lambda:InvokeFunction', { Ref: 'AWS::NoValue' }],
          ]
        : [],
    );
    for (const s of kms) expect(s['Fn::If'][1].Action).toBe('kms:Decrypt');
    // Decrypting through SSM only where some parameter is read.
    expect(kms).toHaveLength(SECRET_PARAMETERS[name]!.length > 0 || OPTIONAL_SECRET_ONLY.includes(name) ? 1 : 0);
    // Sending as the configured identity (and configuration set) only where mail is sent.
    expect(mail).toHaveLength(sendsMail(name) ? 1 : 0);
    for (const s of mail) {
      expect(s['Fn::If'][1].Action).toBe('ses:SendEmail');
      expect(s['Fn::If'][2]).toEqual({ Ref: 'AWS::NoValue' });
      const resource = s['Fn::If'][1].Resource as { 'Fn::If': [string, unknown[], unknown] };
      expect(resource['Fn::If'][0]).toBe('HasSesConfigurationSet');
      expect(resource['Fn::If'][1]).toHaveLength(2);
      expect(resource['Fn::If'][1][0]).toEqual(resource['Fn::If'][2]); // the identity, with or without the set
    }
    const statements = [...all.filter((s) => !conditional.includes(s as never)), ...mail.map((s) => s['Fn::If'][1])] as Statement[];
    for (const s of statements) expect(s.Effect).toBe('Allow');
    const actions = (s: Statement) => [s.Action].flat();
    const logs = statements.filter((s) => actions(s).some((a) => a.startsWith('logs:')));
    expect(logs).toEqual([
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [`${logicalId(name)}LogGroup`, 'Arn'] } },
    ]);
    const rest = statements.filter((s) => !logs.includes(s));
    const expected = [...ACTIONS[name]!.filter((action) => !(CONDITIONAL_ACTIONS[name] ?? []).includes(action)), ...(LAMBDA_AS_ROLE[name] ?? [])];
    expect([...new Set(rest.flatMap(actions))].sort()).toEqual([...new Set(expected)].sort());
    expect(rest.flatMap(actions).some((a) => a.includes('*'))).toBe(false);
    expect(JSON.stringify(rest)).not.toContain('"*"'); // no statement on every resource

    for (const s of rest.filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')))) {
      const query = actions(s).includes('dynamodb:Query');
      // The table's streams (whichever is current), for Lambda reading them as the events function.
      const stream = actions(s).includes('dynamodb:GetRecords');
      expect(s.Resource).toEqual(query ? { 'Fn::Sub': '${UsersTable.Arn}/index/userId-index' } : stream ? { 'Fn::Sub': '${UsersTable.Arn}/stream/*' } : { 'Fn::GetAtt': ['UsersTable', 'Arn'] });
    }
    for (const s of rest.filter((s) => actions(s).includes('sqs:SendMessage'))) expect(s.Resource).toEqual({ 'Fn::GetAtt': [`${logicalId(name)}DeadLetterQueue`, 'Arn'] });
    if (name === 'rehash') {
      const cursor = rest.find((s) => actions(s).includes('dynamodb:PutItem'));
      expect(cursor?.Condition).toEqual({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['job#rehash'] } });
    }
    // Read access to exactly the parameters named in its environment.
    const env = (resource(`${logicalId(name)}LambdaFunction`).Properties.Environment as { Variables: Record<string, string> }).Variables;
    const parameterArns = rest
      .filter((s) => actions(s).includes('ssm:GetParameter'))
      .flatMap((s) => [s.Resource].flat() as { 'Fn::Sub': string }[])
      .map((arn) => arn['Fn::Sub'].replace(/^arn:\$\{AWS::Partition\}:ssm:\$\{AWS::Region\}:\$\{AWS::AccountId\}:parameter/, ''));
    expect(parameterArns.sort()).toEqual(SECRET_PARAMETERS[name]!.map((variable) => env[variable]).sort());
  });

  it.each(LAMBDA_FUNCTIONS.map((fn) => fn.name))('%s: env names its secrets, never holds them', (name) => {
    const env = (resource(`${logicalId(name)}LambdaFunction`).Properties.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {};
    expect(Object.keys(env).filter((key) => key.endsWith('_PARAMETER')).sort()).toEqual([...SECRET_PARAMETERS[name]!].sort());
    expect(env).not.toHaveProperty('PASSLANE_PEPPER_KEYS');
    expect(env).not.toHaveProperty('PASSLANE_JWT_PRIVATE_KEY');
    // Public, so plain env; only where it is published or checked against the signing key.
    const expectedPublicKeys = arch === 'arm64' ? publicKeys : '{{resolve:ssm:/passlane/dev/jwt-public-keys}}';
    if (PUBLIC_KEYS_FUNCTIONS.includes(name)) expect(env.PASSLANE_JWT_PUBLIC_KEYS).toBe(expectedPublicKeys);
    else expect(env).not.toHaveProperty('PASSLANE_JWT_PUBLIC_KEYS');
    // Mail settings only where mail is sent; email verification off unless asked for.
    const mail = Object.keys(env).filter((key) => MAIL_VARIABLES.includes(key));
    expect(mail.sort()).toEqual(sendsMail(name) ? [...MAIL_VARIABLES].sort() : []);
    if (sendsMail(name)) expect(env).toMatchObject({ PASSLANE_EMAIL_VERIFICATION: 'false', PASSLANE_REQUIRE_VERIFIED_EMAIL: 'false' });
  });

  it('packaged without a sender: no function may send mail, and none is told an identity', () => {
    // Mail is configured by parameters (infra/README.md, "Sending mail"); `npm run package` alone sets none.
    const resolve = createResolver(template() as unknown as ResolvableTemplate, { UsersTable: 'passlane-dev-UsersTable', HttpApi: 'api0000001', ...queueNames() });
    for (const role of functionRoles(template() as unknown as ResolvableTemplate, resolve)) {
      expect(JSON.stringify(role.policies), role.functionName).not.toContain('ses:');
    }
    for (const name of LAMBDA_FUNCTIONS.map((fn) => fn.name).filter(sendsMail)) {
      const variables = resolve((resource(`${logicalId(name)}LambdaFunction`).Properties.Environment as { Variables: unknown }).Variables) as Record<string, string>;
      expect(variables).toMatchObject({ PASSLANE_MAIL_FROM: '', PASSLANE_APP_URL: '', PASSLANE_SES_IDENTITY_ARN: '', PASSLANE_SES_CONFIGURATION_SET: '' });
    }
  });

  it('holds none of the secret values set while packaging', () => {
    const text = readFileSync(join(workDir, arch, 'cloudformation-template-update-stack.json'), 'utf8');
    const state = readFileSync(join(workDir, arch, 'serverless-state.json'), 'utf8');
    for (const secret of [pepperKey, fingerprintKey, signingKey.d!, signingKey.p!]) {
      expect(text).not.toContain(secret);
      expect(state).not.toContain(secret);
    }
  });
});

describe.each(LAMBDA_ARCHITECTURES)('zips for %s', (arch) => {
  it.each(LAMBDA_FUNCTIONS.map((fn) => fn.name))('%s: the binaries for this CPU, argon2.wasm where a hasher is built', (name) => {
    const files = readZip(join(zipsDir(arch), `${name}.zip`));
    const binaries = Object.keys(files).filter((file) => file.endsWith('.node'));
    if (HASHER_FUNCTIONS.includes(name)) {
      expect(binaries.sort()).toEqual([`argon2.linux-${NPM_CPU[arch]}-gnu.node`, `bcrypt.linux-${NPM_CPU[arch]}-gnu.node`]);
      for (const binary of binaries) expect(elfMachine(files[binary]!)).toBe(ELF_MACHINE[arch]);
      expect(Object.keys(files)).toContain('argon2.wasm');
    } else {
      // No hasher: no binary, no WASM, no backend chunk (a DynamoDB client brings the SDK's own lazy chunks).
      expect(binaries).toEqual([]);
      expect(Object.keys(files).filter((file) => file === 'argon2.wasm' || /^(native|load-wasm-module-node)-/.test(file))).toEqual([]);
    }
    // No secret read, no SSM client; the JWKS functions are their entry alone.
    if (SECRET_PARAMETERS[name]!.length === 0 && !OPTIONAL_SECRET_ONLY.includes(name)) expect(Object.keys(files).filter((file) => file.startsWith('ssm-secret-source-'))).toEqual([]);
    // The SES client in a chunk of its own, only where mail is wired (loaded on the first send).
    expect(Object.keys(files).filter((file) => file.startsWith('ses-client-'))).toHaveLength(SES_CHUNK_FUNCTIONS.includes(name) ? 1 : 0);
    if (SES_CHUNK_FUNCTIONS.includes(name)) expect(new TextDecoder().decode(files[BUNDLE_FILE])).not.toMatch(/SESv2Client|SendEmailCommand/);
    if (name === 'jwks' || name === 'openidConfiguration') expect(Object.keys(files)).toEqual([BUNDLE_FILE]);
    // @simplewebauthn (one of its messages marks it): a chunk read when a ceremony runs, never
    // index.mjs (login's password path, and the passkey functions' list, rename and removal never
    // parse it); no other function has it at all.
    const webauthnFiles = Object.keys(files).filter((file) => new TextDecoder().decode(files[file]).includes(WEBAUTHN_MARKER));
    if (name === 'login') expect(webauthnFiles).toEqual([expect.stringMatching(/^check-passkey-assertion-.*\.mjs$/)]);
    if (name === 'passkeys' || name === 'passkeyLogin') expect(webauthnFiles).toEqual([expect.stringMatching(/\.mjs$/)]);
    if (name === 'passkeys' || name === 'passkeyLogin') expect(webauthnFiles).not.toContain(BUNDLE_FILE);
    // The federation function finishes logins with the login's shared step, whose passkey check is that same lazy chunk.
    if (name === 'federation') expect(webauthnFiles).toEqual([expect.stringMatching(/^check-passkey-assertion-.*\.mjs$/)]);
    if (!['login', 'passkeys', 'passkeyLogin', 'federation'].includes(name)) expect(webauthnFiles).toEqual([]);
    const code = new TextDecoder().decode(files[BUNDLE_FILE]);
    // The blocklist's data carries its format marker: in the functions that set passwords, in no file of any other zip.
    const holdingBlocklist = Object.keys(files).filter((file) => new TextDecoder().decode(files[file]).includes(BLOCKLIST_FORMAT));
    expect(holdingBlocklist).toEqual(BLOCKLIST_FUNCTIONS.includes(name) ? [BUNDLE_FILE] : []);
    expect(code).not.toContain(pepperKey);
    expect(code).not.toContain(signingKey.d!);
  });
});

describe.each(LAMBDA_ARCHITECTURES)('the CDK construct over the %s zips', (arch) => {
  it('deploys each function from the zip this packaging built, byte for byte, for that CPU', () => {
    const { template } = synthConstruct(join(workDir, `cdk-${arch}`), { architecture: arch, bundleDirectory: zipsDir(arch) });
    const assetsDir = join(workDir, `cdk-${arch}`);
    const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions).toHaveLength(LAMBDA_FUNCTIONS.length);
    const staged = new Map<string, Buffer>();
    for (const fn of functions) {
      expect(fn.Properties!.Architectures).toEqual([arch]);
      const key = (fn.Properties!.Code as { S3Key: string }).S3Key;
      staged.set(key, readFileSync(join(assetsDir, `asset.${key}`)));
    }
    // Every packaged zip is one function's asset, unchanged: nothing is rebuilt at synth.
    for (const { name } of LAMBDA_FUNCTIONS) {
      const zip = readFileSync(join(zipsDir(arch), `${name}.zip`));
      expect([...staged.values()].some((asset) => asset.equals(zip)), name).toBe(true);
    }
  });

  it('refuses the other architecture\'s zips', () => {
    const other = LAMBDA_ARCHITECTURES.find((candidate) => candidate !== arch)!;
    expect(() => synthConstruct(join(workDir, `cdk-${arch}-wrong`), { architecture: other, bundleDirectory: zipsDir(arch) })).toThrow(`holds zips for ${arch}, not ${other}`);
  });
});

describe('the x86_64 zips, unpacked and imported, against DynamoDB Local', () => {
  let dynamo: RunningDynamoDb;
  const savedEnv = { ...process.env };
  const unpacked: Record<string, string> = {};
  const table = `passlane-package-${randomUUID()}`;

  beforeAll(async () => {
    dynamo = await startDynamoDbLocal();
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      PASSLANE_TABLE: table,
      // Plain env: AWS SSM is not reachable here (the SSM path is tested in load-secrets.test.ts).
      PASSLANE_PEPPER_KEYS: `k1:${pepperKey}`,
      PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(signingKey),
      PASSLANE_FINGERPRINT_KEY: fingerprintKey,
      PASSLANE_JWT_PUBLIC_KEYS: publicKeys,
      PASSLANE_JWT_ISSUER: 'https://auth.example.test',
      // As on Lambda: no local key file, native binding expected.
      AWS_LAMBDA_FUNCTION_NAME: 'passlane-test',
      AWS_REGION: 'eu-west-1',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    });
    // The same connection as the functions (DynamoDB Local keeps one database per region and key).
    await ensureTable(createDynamoDbClient(readStorageConfig(process.env)), table);
    for (const name of ['register', 'login', 'jwks', 'authorizer', 'recovery', 'federation', 'events']) {
      unpacked[name] = join(workDir, 'unpacked', name);
      unpackZip(join(zipsDir('x86_64'), `${name}.zip`), unpacked[name]);
    }
    // A second copy of login: a separate module instance that gets the WASM backend.
    unpacked.loginWasm = join(workDir, 'unpacked', 'login-wasm');
    unpackZip(join(zipsDir('x86_64'), 'login.zip'), unpacked.loginWasm);
    // And a third, configured as deployed: secrets named as SSM parameters.
    unpacked.loginSsm = join(workDir, 'unpacked', 'login-ssm');
    unpackZip(join(zipsDir('x86_64'), 'login.zip'), unpacked.loginSsm);
  }, 60_000);

  afterAll(async () => {
    process.env = savedEnv;
    await dynamo?.stop();
  });

  it('registers with the register zip, logs in with the login zip (native, then WASM), tokens verify against the jwks zip', async () => {
    const handlerOf = async (name: string) =>
      ((await import(pathToFileURL(join(unpacked[name]!, BUNDLE_FILE)).href)) as { handler: LambdaHandler }).handler;
    const email = `package-${randomUUID()}@example.com`;
    const password = 'correct horse battery staple';

    process.env.PASSLANE_ARGON2_BACKEND = 'native'; // fail rather than fall back: proves the .node loads
    const register = await handlerOf('register');
    const registered = await register(httpApiEvent('POST', '/register', { email, password }), lambdaContext());
    expect(registered.statusCode, registered.body).toBe(201);

    const login = await handlerOf('login');
    const started = performance.now();
    const loggedIn = await login(httpApiEvent('POST', '/login', { email, password }), lambdaContext());
    console.log(`first login through the bundled x86_64 handler: ${Math.round(performance.now() - started)} ms`);
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    const { accessToken } = JSON.parse(loggedIn.body) as { accessToken: string };

    // As deployed, the JWKS function has the public keys and no private key.
    const jwks = await handlerOf('jwks');
    const privateKey = process.env.PASSLANE_JWT_PRIVATE_KEY;
    delete process.env.PASSLANE_JWT_PRIVATE_KEY;
    const jwksResponse = await jwks(httpApiEvent('GET', '/.well-known/jwks.json'), lambdaContext());
    process.env.PASSLANE_JWT_PRIVATE_KEY = privateKey;
    expect(jwksResponse.statusCode, jwksResponse.body).toBe(200);
    const keys = JSON.parse(jwksResponse.body) as JSONWebKeySet;
    const { payload } = await jwtVerify(accessToken, createLocalJWKSet(keys), { issuer: 'https://auth.example.test', audience: 'passlane-api' });
    expect(payload.sub).toBe((JSON.parse(registered.body) as { userId: string }).userId);

    // The authorizer zip, also with the public keys only, lets the token through: its session is live.
    const authorizer = (await import(pathToFileURL(join(unpacked.authorizer!, BUNDLE_FILE)).href)) as { handler: (event: unknown, context: Context) => Promise<unknown> };
    delete process.env.PASSLANE_JWT_PRIVATE_KEY;
    const authorized = await authorizer.handler(httpApiAuthorizerEvent(`Bearer ${accessToken}`), lambdaContext());
    process.env.PASSLANE_JWT_PRIVATE_KEY = privateKey;
    expect(authorized).toEqual({ isAuthorized: true, context: { sub: payload.sub, sid: payload.sid } });

    // The WASM fallback reads argon2.wasm next to index.mjs: the zip's layout must provide it.
    process.env.PASSLANE_ARGON2_BACKEND = 'wasm';
    const loginWasm = await handlerOf('loginWasm');
    expect((await loginWasm(httpApiEvent('POST', '/login', { email, password }), lambdaContext())).statusCode).toBe(200);
    expect((await loginWasm(httpApiEvent('POST', '/login', { email, password: 'wrong password!' }), lambdaContext())).statusCode).toBe(401);
  });

  it('the federation zip signs a new user in through a real OpenID provider: start, the provider, the callback, the app code', async () => {
    const publicUrl = 'http://127.0.0.1:9';
    const provider = await startOidcProvider({ redirectUris: [`${publicUrl}/oauth/oidc/callback`] });
    const saved = { ...process.env };
    try {
      Object.assign(process.env, {
        PASSLANE_OAUTH_PROVIDERS: JSON.stringify({ oidc: { kind: 'oidc', issuer: provider.issuer, clientId: provider.clientId, scopes: ['openid', 'email'], redirectOrigins: ['https://app.example.test'] } }),
        PASSLANE_OAUTH_SECRETS: JSON.stringify({ oidc: { clientSecret: provider.clientSecret } }),
        PASSLANE_PUBLIC_URL: publicUrl,
      });
      const { handler } = (await import(pathToFileURL(join(unpacked.federation!, BUNDLE_FILE)).href)) as { handler: (event: unknown, context: Context) => Promise<{ statusCode: number; headers: Record<string, string>; cookies?: string[]; body: string }> };
      const get = (path: string, query: string, cookies?: string[]) => handler({ ...httpApiEvent('GET', path), rawQueryString: query, ...(cookies && { cookies }) }, lambdaContext());
      provider.signInAs({ sub: randomUUID(), email: `package-${randomUUID()}@example.com`, emailVerified: true });
      const verifier = oauth.generateRandomCodeVerifier();
      const started = await get('/oauth/oidc/start', new URLSearchParams({ redirect_to: 'https://app.example.test/done', code_challenge: await oauth.calculatePKCECodeChallenge(verifier) }).toString());
      expect(started.statusCode, started.body).toBe(302);
      const back = await throughProvider(started.headers.location!, publicUrl);
      const called = await get('/oauth/oidc/callback', back.url.search.slice(1), [started.cookies![0]!.split(';')[0]!]);
      const code = new URL(called.headers.location!).searchParams.get('code');
      expect(code, called.headers.location).not.toBeNull();
      const redeemed = await handler(httpApiEvent('POST', '/oauth/token', { code, codeVerifier: verifier }), lambdaContext());
      expect(redeemed.statusCode, redeemed.body).toBe(200);
      const { payload } = await jwtVerify((JSON.parse(redeemed.body) as { accessToken: string }).accessToken, createLocalJWKSet(JSON.parse(publicKeys) as JSONWebKeySet), { issuer: 'https://auth.example.test' });
      expect(payload.amr).toEqual(['fed']);
    } finally {
      process.env = saved;
      await provider.stop();
    }
  });

  it('the recovery zip mails a reset link through its own SES chunk', async () => {
    const ses = await startSesCapture();
    const saved = { ...process.env };
    try {
      Object.assign(process.env, {
        PASSLANE_ARGON2_BACKEND: 'native',
        PASSLANE_MAIL_FROM: 'Passlane <no-reply@mail.example.test>',
        PASSLANE_APP_URL: 'https://app.example.test',
        PASSLANE_SES_IDENTITY_ARN: 'arn:aws:ses:eu-west-1:123456789012:identity/mail.example.test',
        PASSLANE_SES_ENDPOINT: ses.endpoint,
      });
      const email = `package-reset-${randomUUID()}@example.com`;
      const load = async (name: string) => ((await import(pathToFileURL(join(unpacked[name]!, BUNDLE_FILE)).href)) as { handler: LambdaHandler }).handler;
      const register = await load('register');
      expect((await register(httpApiEvent('POST', '/register', { email, password: 'correct horse battery staple' }), lambdaContext())).statusCode).toBe(201);
      const recovery = await load('recovery');
      const response = await recovery(httpApiEvent('POST', '/password/reset', { email }), lambdaContext());
      expect(response.statusCode, response.body).toBe(202);
      expect(ses.requests.map((request) => request.body)).toEqual([
        expect.objectContaining({ FromEmailAddressIdentityArn: process.env.PASSLANE_SES_IDENTITY_ARN, Destination: { ToAddresses: [email] } }),
      ]);
      expect(ses.requests[0]!.body.Content?.Simple?.Body?.Text?.Data).toContain('https://app.example.test/reset-password#token=');
    } finally {
      process.env = saved;
      await ses.stop();
    }
  });

  it('fetches secrets named as SSM parameters through the zip\'s own SSM chunk, loaded only then', async () => {
    // The SSM client sits in a chunk of its own: a cold start with plain env never reads it.
    expect(readdirSync(unpacked.loginSsm!).filter((file) => file.startsWith('ssm-secret-source-'))).toHaveLength(1);
    const ssm = await startLocalSsmEndpoint({
      '/passlane/pepper': `k1:${pepperKey}`,
      '/passlane/jwt': JSON.stringify(signingKey),
      '/passlane/fingerprint': fingerprintKey,
    });
    const saved = { ...process.env };
    try {
      Object.assign(process.env, {
        AWS_ENDPOINT_URL_SSM: ssm.endpoint,
        AWS_ACCESS_KEY_ID: 'AKIDLOCAL',
        AWS_SECRET_ACCESS_KEY: 'local',
        PASSLANE_PEPPER_KEYS_PARAMETER: '/passlane/pepper',
        PASSLANE_JWT_PRIVATE_KEY_PARAMETER: '/passlane/jwt',
        PASSLANE_FINGERPRINT_KEY_PARAMETER: '/passlane/fingerprint',
        PASSLANE_ARGON2_BACKEND: 'native',
      });
      delete process.env.PASSLANE_PEPPER_KEYS;
      delete process.env.PASSLANE_JWT_PRIVATE_KEY;
      delete process.env.PASSLANE_FINGERPRINT_KEY;
      // DynamoDB Local keeps one database per access key: the table must exist under this one too.
      await ensureTable(createDynamoDbClient(readStorageConfig(process.env)), table);
      const { handler } = (await import(pathToFileURL(join(unpacked.loginSsm!, BUNDLE_FILE)).href)) as { handler: LambdaHandler };
      const response = await handler(httpApiEvent('POST', '/login', { email: `nobody-${randomUUID()}@example.com`, password: 'wrong password!' }), lambdaContext());
      expect(response.statusCode, response.body).toBe(401);
      expect(ssm.requests.map((request) => request.body.Name).sort()).toEqual(['/passlane/fingerprint', '/passlane/jwt', '/passlane/pepper']);
    } finally {
      process.env = saved;
      await ssm.stop();
    }
  });

  it('the events zip delivers a stream batch: an account\'s outbox to EventBridge through the SDK client it bundles', async () => {
    const bridge = await startLocalEventBridgeEndpoint();
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { PASSLANE_EVENT_BUS: 'team-events', AWS_ENDPOINT_URL_EVENTBRIDGE: bridge.endpoint, AWS_ACCESS_KEY_ID: 'AKIDLOCAL', AWS_SECRET_ACCESS_KEY: 'local' });
      const client = createDynamoDbClient(readStorageConfig(process.env));
      await ensureTable(client, table);
      const accountId = randomUUID();
      const events = someEvents(accountId, 2);
      await appendToOutbox(client, table, events);
      const { handler } = (await import(pathToFileURL(join(unpacked.events!, BUNDLE_FILE)).href)) as { handler: (event: unknown, context: Context) => Promise<unknown> };
      expect(await handler(outboxStreamEvent([accountId]), lambdaContext())).toEqual({ batchItemFailures: [] });
      expect(bridge.accepted.map((entry) => (JSON.parse(entry.Detail!) as { id: string }).id)).toEqual(events.map((event) => event.id));
      expect(bridge.accepted[0]).toMatchObject({ EventBusName: 'team-events', Source: 'passlane', DetailType: 'password.changed' });
    } finally {
      process.env = saved;
      await bridge.stop();
    }
  });

  it('prints zip sizes and cold import times', async () => {
    const rows: string[] = [];
    for (const fn of LAMBDA_FUNCTIONS) {
      const dir = join(workDir, 'unpacked-timing', fn.name);
      unpackZip(join(zipsDir('x86_64'), `${fn.name}.zip`), dir);
      const sizes = LAMBDA_ARCHITECTURES.map((arch) => `${(readFileSync(join(zipsDir(arch), `${fn.name}.zip`)).byteLength / 1024).toFixed(0)} KiB`);
      const ms = await coldImportMs(join(dir, BUNDLE_FILE));
      expect(ms).toBeGreaterThan(0);
      rows.push(`| ${fn.name} | ${sizes.join(' | ')} | ${ms.toFixed(0)} ms |`);
    }
    console.log(['| function | zip arm64 | zip x86_64 | cold import (x86_64, median of 3) |', '|---|---|---|---|', ...rows].join('\n'));
  }, 60_000);
});

type LambdaHandler = (event: unknown, context: Context) => Promise<{ statusCode: number; body: string; headers?: Record<string, string> }>;

