/**
 * The CDK route against the Serverless one: the example app (examples/cdk/app.ts) synthesized
 * offline as `cdk synth` does, and its template compared with the one osls packages from
 * serverless.yml, resource by resource: the table's settings, each function's runtime, memory,
 * timeout, environment and role (resolved to concrete values), log retention, the API's routes,
 * throttling, access logs and authorizers. Once with defaults, once with every option set
 * (mail, a KMS key, a migration by URL, rate limits, the argon2 backend, memory, throttling,
 * browser origins), and
 * for the login function with a migration through a Lambda function.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capitalized, PASSLANE_FUNCTIONS } from '../packages/server/src/cdk/functions.js';
import { bundleZips, PasslaneAuth, type PasslaneAuthProps } from '../packages/server/src/cdk/passlane-auth.js';
import { tableDefinition } from '../packages/server/src/storage/table.js';
import { createResolver, functionEnvironment, functionRoles, type Template as ResolvableTemplate } from './support/iam/template-roles.js';
import {
  logGroupNames,
  packageServerless,
  placeholderBundles,
  serverlessLogicalIds,
  serverlessShaped,
  synthConstruct,
  synthExampleApp,
  type CfnTemplate,
} from './support/deploy-templates.js';

/**
 * What CloudFormation would name (generated names), the same for both templates. serverless.yml
 * names its table (passlane-<stage>-users); the CDK's generated name stands in as the same, so
 * the environments and roles compare on everything else.
 */
const SERVERLESS_TABLE = 'passlane-dev-users';
const PHYSICAL_IDS = { UsersTable: SERVERLESS_TABLE, HttpApi: 'cdkcheck01', ...logGroupNames() };
const NAMES = PASSLANE_FUNCTIONS.map((fn) => fn.name);

/** Every option, as serverless.yml params and as construct props. */
const KMS_KEY = 'arn:aws:kms:eu-west-1:123456789012:key/0b1c2d3e-1111-2222-3333-444455556666';
const ALARM_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:passlane-alarms';
const CONFIGURED_PARAMS = {
  mailFrom: 'Passlane <no-reply@mail.example.test>',
  appUrl: 'https://app.example.test',
  sesConfigurationSet: 'passlane-events',
  emailVerification: 'true',
  secretsKmsKeyArn: KMS_KEY,
  secretsRevision: '3',
  jwtAudience: 'example-api',
  jwtPreviousPublicKeys: '{"keys":[]}',
  jwtPublicKeys: '{"keys":[{"kid":"k1"}]}',
  migrationUrl: 'https://legacy.example.test/verify',
  migrationSecretParameter: '/passlane/dev/migration-secret',
  migrationTimeoutMs: '2000',
  loginLimitPerIp: '20',
  loginAccountLockSeconds: '7200',
  argon2Backend: 'wasm',
  authorizerCacheSeconds: '10',
  hasherMemorySize: '2048',
  throttleRatePerSecond: '20',
  throttleBurst: '40',
  corsOrigins: 'https://app.example.test,https://admin.example.test',
  oauthClientId: 'orders-app',
  tokenScopes: 'orders:read orders:write',
  requiredScope: 'orders:read',
  webauthnRpId: 'example.test',
  webauthnOrigins: 'https://app.example.test,https://admin.example.test',
  webauthnRpName: 'Example',
  oauthProviders: '{"google":{"kind":"google","clientId":"g","redirectOrigins":["https://app.example.test"]}}',
  publicUrl: 'https://auth.example.test',
  oauthSecretsParameter: '/passlane/dev/oauth-secrets',
  events: 'on',
  eventsSignIn: 'on',
  eventBus: 'team-events',
  alarmTopicArn: ALARM_TOPIC,
  tokenHookUrl: 'https://hooks.example.test/claims',
  tokenHookSecretsParameter: '/passlane/dev/token-hook-secrets',
  tokenHookTimeoutMs: '1500',
  tokenHookOnFailure: 'without_claims',
  signupHookUrl: 'https://hooks.example.test/signup',
  signupHookSecretsParameter: '/passlane/dev/signup-hook-secrets',
};
const CONFIGURED_PROPS: PasslaneAuthProps = {
  mail: { from: CONFIGURED_PARAMS.mailFrom, appUrl: CONFIGURED_PARAMS.appUrl, configurationSet: 'passlane-events', emailVerification: true },
  secrets: { kmsKeyArn: KMS_KEY, revision: '3' },
  jwt: { audience: 'example-api', previousPublicKeys: '{"keys":[]}', publicKeys: '{"keys":[{"kid":"k1"}]}' },
  migration: { url: 'https://legacy.example.test/verify', secretParameterName: '/passlane/dev/migration-secret', timeoutMs: 2000 },
  rateLimits: { perSource: 20, accountLockSeconds: 7200 },
  argon2: { backend: 'wasm' },
  authorizer: { cacheSeconds: 10 },
  memorySize: 2048,
  throttling: { rateLimit: 20, burstLimit: 40 },
  corsOrigins: ['https://app.example.test', 'https://admin.example.test'],
  oauth: { clientId: 'orders-app', scopes: ['orders:read', 'orders:write'], requiredScope: 'orders:read' },
  passkeys: { rpId: 'example.test', origins: ['https://app.example.test', 'https://admin.example.test'], rpName: 'Example' },
  federation: {
    providers: { google: { kind: 'google', clientId: 'g', redirectOrigins: ['https://app.example.test'] } },
    publicUrl: 'https://auth.example.test',
    secretsParameterName: '/passlane/dev/oauth-secrets',
  },
  events: { enabled: true, signIn: true, busName: 'team-events', alarmTopicArn: ALARM_TOPIC },
  tokenHook: { url: 'https://hooks.example.test/claims', secretsParameterName: '/passlane/dev/token-hook-secrets', timeoutMs: 1500, onFailure: 'without_claims' },
  signupHook: { url: 'https://hooks.example.test/signup', secretsParameterName: '/passlane/dev/signup-hook-secrets' },
};

let workDir: string;
let bundles: string;
const templates = {} as Record<
  'serverless' | 'cdk' | 'serverlessConfigured' | 'cdkConfigured' | 'serverlessFunctionMigration' | 'cdkFunctionMigration' | 'serverlessFunctionHooks' | 'cdkFunctionHooks',
  CfnTemplate
>;
/** Both hooks as Lambda functions (by name, one with an alias). */
const TOKEN_HOOK_FUNCTION = 'claims-hook:live';
const SIGNUP_HOOK_FUNCTION = 'signup-rule';
/** Who asks which hook: the functions that mint tokens, and those that create accounts. */
const TOKEN_HOOK_ASKERS = ['login', 'token', 'passkeyLogin', 'federation'];
const SIGNUP_HOOK_ASKERS = ['register', 'login', 'federation'];
/** A migration through a Lambda function, by name and alias. */
const MIGRATION_FUNCTION = 'legacy-users:live';
let assemblyDir: string;
let exampleStackName: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'passlane-cdk-'));
  bundles = placeholderBundles(join(workDir, 'bundles', 'arm64'));
  const started = performance.now();
  const [serverless, serverlessConfigured, serverlessFunctionMigration, serverlessFunctionHooks] = await Promise.all([
    packageServerless(mkdtempSync(join(workDir, 'sls-'))),
    packageServerless(mkdtempSync(join(workDir, 'sls-')), { params: CONFIGURED_PARAMS }),
    packageServerless(mkdtempSync(join(workDir, 'sls-')), { params: { migrationFunction: MIGRATION_FUNCTION } }),
    packageServerless(mkdtempSync(join(workDir, 'sls-')), { params: { tokenHookFunction: TOKEN_HOOK_FUNCTION, signupHookFunction: SIGNUP_HOOK_FUNCTION } }),
  ]);
  const packagedMs = performance.now() - started;
  const example = synthExampleApp(join(workDir, 'cdk.out'), { bundles });
  assemblyDir = example.assemblyDir;
  exampleStackName = example.stack.stackName;
  const configured = synthConstruct(join(workDir, 'cdk-configured.out'), { ...CONFIGURED_PROPS, bundleDirectory: bundles });
  const functionMigration = synthConstruct(join(workDir, 'cdk-function.out'), { bundleDirectory: bundles, migration: { functionName: MIGRATION_FUNCTION } });
  const functionHooks = synthConstruct(join(workDir, 'cdk-hooks.out'), {
    bundleDirectory: bundles,
    tokenHook: { functionName: TOKEN_HOOK_FUNCTION },
    signupHook: { functionName: SIGNUP_HOOK_FUNCTION },
  });
  console.log(`osls packaged 3 templates in ${Math.round(packagedMs)} ms; cdk synthesized 3 in ${Math.round(performance.now() - started - packagedMs)} ms`);
  Object.assign(templates, {
    serverless,
    serverlessConfigured,
    cdk: serverlessShaped(example.template, serverlessLogicalIds(example.stack, example.stack.auth)),
    cdkConfigured: serverlessShaped(configured.template, serverlessLogicalIds(configured.stack, configured.auth)),
    serverlessFunctionMigration,
    cdkFunctionMigration: serverlessShaped(functionMigration.template, serverlessLogicalIds(functionMigration.stack, functionMigration.auth)),
    serverlessFunctionHooks,
    cdkFunctionHooks: serverlessShaped(functionHooks.template, serverlessLogicalIds(functionHooks.stack, functionHooks.auth)),
  });
}, 180_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

const resource = (template: CfnTemplate, id: string) => {
  const found = template.Resources[id];
  if (found === undefined) throw new Error(`no resource ${id}`);
  return found;
};
const ofType = (template: CfnTemplate, type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);
const resolverFor = (template: CfnTemplate) => createResolver(template as ResolvableTemplate, PHYSICAL_IDS);
const rolesOf = (template: CfnTemplate) => new Map(functionRoles(template as ResolvableTemplate, resolverFor(template)).map((role) => [role.functionName, role]));
const environmentOf = (template: CfnTemplate, name: string) => functionEnvironment(template as ResolvableTemplate, name, resolverFor(template)).variables;

/** Route key -> the logical id of the function behind it (route -> integration -> function). */
function routesOf(template: CfnTemplate): Record<string, string> {
  const refs = (value: unknown): string[] => JSON.stringify(value).match(/"Ref":"([^"]+)"/g)?.map((ref) => ref.slice(7, -1)) ?? [];
  return Object.fromEntries(
    ofType(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => {
      const integrationId = refs(route.Properties!.Target).find((id) => template.Resources[id]?.Type === 'AWS::ApiGatewayV2::Integration');
      const integration = resource(template, integrationId!).Properties!;
      expect(integration).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      return [route.Properties!.RouteKey as string, (integration.IntegrationUri as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]];
    }),
  );
}

describe('the example app, synthesized as `cdk synth` does (offline, no account)', () => {
  it('stages each function\'s packaged zip as it is: file assets, nothing built at synth', () => {
    const assets = JSON.parse(readFileSync(join(assemblyDir, `${exampleStackName}.assets.json`), 'utf8')) as { files: Record<string, { source: { path: string; packaging: string } }> };
    const functions = ofType(templates.cdk, 'AWS::Lambda::Function');
    expect(functions.map(([id]) => id).sort()).toEqual(NAMES.map((name) => `${capitalized(name)}LambdaFunction`).sort());
    for (const [, fn] of functions) {
      const key = (fn.Properties!.Code as { S3Key: string }).S3Key;
      const asset = assets.files[key.replace(/\.zip$/, '')];
      expect(asset?.source).toEqual({ path: `asset.${key}`, packaging: 'file' });
    }
  });

  it('names the secrets as SSM parameters and never holds a value', () => {
    const text = JSON.stringify(templates.cdk);
    for (const name of ['pepper-keys', 'jwt-private-key', 'fingerprint-key']) expect(text).toContain(`/passlane/dev/${name}`);
    expect(ofType(templates.cdk, 'AWS::SSM::Parameter')).toEqual([]);
    // The public keys: a deploy-time reference to a String parameter, as serverless.yml makes it.
    expect(environmentOf(templates.cdk, 'jwks').PASSLANE_JWT_PUBLIC_KEYS).toBe('{{resolve:ssm:/passlane/dev/jwt-public-keys}}');
  });
});

describe.each([
  ['defaults', 'serverless', 'cdk'],
  ['every option set', 'serverlessConfigured', 'cdkConfigured'],
] as const)('CDK and Serverless templates, %s', (_, serverlessKey, cdkKey) => {
  const sls = () => templates[serverlessKey];
  const cdk = () => templates[cdkKey];

  it('the table: same keys, index, billing, TTL, point-in-time recovery, deletion protection, kept on delete', () => {
    const table = resource(cdk(), 'UsersTable');
    // The one difference: serverless.yml names the table (its functions get the name as a plain value), CloudFormation names the CDK's.
    const { TableName, ...serverlessProperties } = resource(sls(), 'UsersTable').Properties!;
    expect({ serverless: TableName, cdk: table.Properties!.TableName }).toEqual({ serverless: SERVERLESS_TABLE, cdk: undefined });
    expect(table.Properties).toEqual(serverlessProperties);
    expect({ DeletionPolicy: table.DeletionPolicy, UpdateReplacePolicy: table.UpdateReplacePolicy }).toEqual({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    const definition = tableDefinition('unused');
    expect(table.Properties).toMatchObject({ KeySchema: definition.KeySchema, GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes, BillingMode: definition.BillingMode });
  });

  it.each(NAMES)('%s: runtime, architecture, handler, memory, timeout, concurrency', (name) => {
    const pick = (template: CfnTemplate) => {
      const { Runtime, Architectures, Handler, MemorySize, Timeout, ReservedConcurrentExecutions } = resource(template, `${capitalized(name)}LambdaFunction`).Properties!;
      return { Runtime, Architectures, Handler, MemorySize, Timeout, ReservedConcurrentExecutions };
    };
    expect(pick(cdk())).toEqual(pick(sls()));
  });

  it.each(NAMES)('%s: the same environment, resolved', (name) => {
    expect(environmentOf(cdk(), name)).toEqual(environmentOf(sls(), name));
  });

  it.each(NAMES)('%s: its own role, the same statements, resolved', (name) => {
    const [cdkRole, slsRole] = [rolesOf(cdk()).get(name)!, rolesOf(sls()).get(name)!];
    expect(cdkRole.policies).toEqual(slsRole.policies);
    expect(resource(cdk(), `${capitalized(name)}Role`).Properties!.AssumeRolePolicyDocument).toEqual(resource(sls(), `${capitalized(name)}Role`).Properties!.AssumeRolePolicyDocument);
    // Inline policies only: nothing attached that the IAM check would not see.
    expect(Object.keys(resource(cdk(), `${capitalized(name)}Role`).Properties!).sort()).toEqual(['AssumeRolePolicyDocument', 'Policies']);
  });

  it('one role per function and no other; no managed policy, no shared role', () => {
    expect(ofType(cdk(), 'AWS::IAM::Role').map(([id]) => id).sort()).toEqual(ofType(sls(), 'AWS::IAM::Role').map(([id]) => id).sort());
    expect(ofType(cdk(), 'AWS::IAM::Policy')).toEqual([]);
  });

  it('logs: a group per function, written to by that function only, and the access logs, kept alike', () => {
    const retention = (template: CfnTemplate) => Object.fromEntries(ofType(template, 'AWS::Logs::LogGroup').map(([id, group]) => [id, group.Properties!.RetentionInDays]));
    expect(retention(cdk())).toEqual(retention(sls()));
    for (const name of NAMES) {
      expect(resource(cdk(), `${capitalized(name)}LambdaFunction`).Properties!.LoggingConfig).toEqual({ LogGroup: { Ref: `${capitalized(name)}LogGroup` } });
    }
  });

  it('the HTTP API: the same routes to the same functions, stage throttling and access log format', () => {
    expect(routesOf(cdk())).toEqual(routesOf(sls()));
    const stage = (template: CfnTemplate) => {
      const { StageName, AutoDeploy, DefaultRouteSettings, AccessLogSettings } = resource(template, 'HttpApiStage').Properties!;
      // A --param reaches the template as a string ("20"), which CloudFormation reads as the number.
      const throttling = Object.fromEntries(Object.entries(DefaultRouteSettings as Record<string, unknown>).map(([key, value]) => [key, Number(value)]));
      return { StageName, AutoDeploy, throttling, Format: (AccessLogSettings as { Format: string }).Format, Destination: (AccessLogSettings as { DestinationArn: unknown }).DestinationArn };
    };
    expect(stage(cdk())).toEqual(stage(sls()));
    expect(resource(cdk(), 'HttpApi').Properties).toMatchObject({ ProtocolType: 'HTTP' });
    // No CORS of the API's own (it would answer preflights and drop the functions' CORS headers):
    // each path's OPTIONS goes to the function serving the path, which answers the preflight.
    for (const template of [cdk(), sls()]) expect(resource(template, 'HttpApi').Properties!.CorsConfiguration).toBeUndefined();
    const routes = routesOf(cdk());
    const operatorRoutes = new Set(PASSLANE_FUNCTIONS.filter((fn) => fn.routeAuthorization === 'iam').flatMap((fn) => fn.routes));
    expect(operatorRoutes.size).toBeGreaterThan(0);
    for (const [key, target] of Object.entries(routes).filter(([key]) => !key.startsWith('OPTIONS ') && !operatorRoutes.has(key))) {
      expect(routes[`OPTIONS ${key.split(' ')[1]}`], `a preflight route beside ${key}`).toBe(target);
    }
    // Passlane's own routes check tokens themselves: no authorizer in front of them. The operator
    // API's are AWS_IAM's alone (a SigV4 signature of an allowed principal), in both templates, with
    // no unauthenticated preflight route that would reach the admin function.
    const authorization = (template: CfnTemplate) =>
      Object.fromEntries(ofType(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => [route.Properties!.RouteKey as string, route.Properties!.AuthorizationType ?? 'NONE']));
    expect(authorization(cdk())).toEqual(authorization(sls()));
    for (const [key, type] of Object.entries(authorization(cdk()))) expect(type, key).toBe(operatorRoutes.has(key) ? 'AWS_IAM' : 'NONE');
    for (const key of Object.keys(routes)) if (key.startsWith('OPTIONS ')) expect(key, 'no preflight on an operator path').not.toMatch(/^OPTIONS \/admin\//);
    // API Gateway may invoke exactly the routed functions and the authorizer.
    const invokable = (template: CfnTemplate) =>
      [...new Set(ofType(template, 'AWS::Lambda::Permission').map(([, p]) => (p.Properties!.FunctionName as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]))].sort();
    expect(invokable(cdk())).toEqual(invokable(sls()));
  });

  it('the events function\'s trigger: the table\'s keys-only stream, the event source mapping (filter, bisect, retries, partial failures, its dead-letter queue), the queue and the alarms', () => {
    for (const template of [cdk(), sls()]) expect(resource(template, 'UsersTable').Properties!.StreamSpecification).toEqual({ StreamViewType: 'KEYS_ONLY' });
    const mappings = (template: CfnTemplate) => ofType(template, 'AWS::Lambda::EventSourceMapping');
    expect(mappings(cdk()).map(([id]) => id)).toEqual(['EventsEventSourceMappingDynamodbUsersTable']);
    expect(mappings(sls()).map(([id]) => id)).toEqual(['EventsEventSourceMappingDynamodbUsersTable']);
    const mapping = (template: CfnTemplate) => resource(template, 'EventsEventSourceMappingDynamodbUsersTable');
    expect(mapping(cdk()).Properties).toEqual(mapping(sls()).Properties);
    expect(mapping(cdk()).Properties).toEqual({
      BatchSize: 10,
      Enabled: true,
      EventSourceArn: { 'Fn::GetAtt': ['UsersTable', 'StreamArn'] },
      FunctionName: { 'Fn::GetAtt': ['EventsLambdaFunction', 'Arn'] },
      ParallelizationFactor: 10,
      StartingPosition: 'TRIM_HORIZON',
      MaximumBatchingWindowInSeconds: 0,
      MaximumRetryAttempts: -1,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRecordAgeInSeconds: 21_600,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['EventsDeadLetterQueue', 'Arn'] } } },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ dynamodb: { Keys: { pk: { S: [{ prefix: 'outbox#' }] } } } }) }] },
    });
    // Created after its role: Lambda checks then that the role may read the stream.
    for (const template of [cdk(), sls()]) expect([mapping(template).DependsOn].flat()).toContain('EventsRole');
    expect(resource(cdk(), 'EventsDeadLetterQueue').Properties).toEqual(resource(sls(), 'EventsDeadLetterQueue').Properties);
    expect(resource(sls(), 'EventsDeadLetterQueue').Properties).toEqual({ MessageRetentionPeriod: 1_209_600, SqsManagedSseEnabled: true });
    expect(ofType(cdk(), 'AWS::SQS::Queue').map(([id]) => id)).toEqual(['EventsDeadLetterQueue']);
    // Alarm actions are a condition in serverless.yml, present or absent in the construct: compared resolved.
    const alarms = (template: CfnTemplate) =>
      Object.fromEntries(ofType(template, 'AWS::CloudWatch::Alarm').map(([id, alarm]) => {
        const { AlarmActions, ...rest } = alarm.Properties!;
        return [id, { ...rest, ...(resolverFor(template)({ AlarmActions }) as object) }];
      }));
    expect(alarms(cdk())).toEqual(alarms(sls()));
    expect(Object.keys(alarms(sls())).sort()).toEqual(['EventsDeadLetterAlarm', 'EventsErrorsAlarm', 'EventsIteratorAgeAlarm']);
    expect(alarms(sls()).EventsDeadLetterAlarm).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['EventsDeadLetterQueue', 'QueueName'] } }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(alarms(sls()).EventsIteratorAgeAlarm).toMatchObject({ MetricName: 'IteratorAge', Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'EventsLambdaFunction' } }] });
  });

  it('both authorizers: JWT (issuer and audience of the tokens) and the session authorizer function', () => {
    const resolve = (template: CfnTemplate) => resolverFor(template);
    const jwt = (template: CfnTemplate) => resolve(template)(resource(template, 'HttpApiAuthorizerPasslaneJwt').Properties);
    expect(jwt(cdk())).toEqual(jwt(sls()));
    const session = (template: CfnTemplate) => resource(template, 'HttpApiAuthorizerPasslaneSession').Properties!;
    expect(session(cdk())).toEqual(session(sls()));
    // CDK scopes the authorizer's invoke permission to that authorizer; osls to the whole API.
    const permission = ofType(cdk(), 'AWS::Lambda::Permission').find(([, p]) => JSON.stringify(p.Properties!.FunctionName).includes('AuthorizerLambdaFunction'))!;
    expect(JSON.stringify(permission[1].Properties!.SourceArn)).toContain('/authorizers/');
  });
});

describe('options the two routes express alike', () => {
  it('sign-in with providers: the federation function gets the providers and may read their secrets\' parameter; no other function', () => {
    for (const template of [templates.cdkConfigured, templates.serverlessConfigured]) {
      const roles = rolesOf(template);
      const statements = (name: string) => roles.get(name)!.policies.flatMap((policy) => policy.policy.Statement);
      expect(statements('federation')).toContainEqual({ Effect: 'Allow', Action: 'ssm:GetParameter', Resource: 'arn:aws:ssm:eu-west-1:123456789012:parameter/passlane/dev/oauth-secrets' });
      expect(environmentOf(template, 'federation')).toMatchObject({
        PASSLANE_OAUTH_PROVIDERS: CONFIGURED_PARAMS.oauthProviders,
        PASSLANE_PUBLIC_URL: 'https://auth.example.test',
        PASSLANE_OAUTH_SECRETS_PARAMETER: '/passlane/dev/oauth-secrets',
      });
      for (const name of NAMES.filter((n) => n !== 'federation')) {
        expect(JSON.stringify(statements(name))).not.toContain('oauth-secrets');
        expect(Object.keys(environmentOf(template, name)).filter((key) => key.startsWith('PASSLANE_OAUTH_PROVIDERS') || key.startsWith('PASSLANE_OAUTH_SECRETS'))).toEqual([]);
      }
    }
    // Not configured: neither the variables nor the permission.
    for (const template of [templates.cdk, templates.serverless]) {
      expect(Object.keys(environmentOf(template, 'federation')).filter((key) => key.startsWith('PASSLANE_OAUTH_') || key === 'PASSLANE_PUBLIC_URL')).toEqual([]);
      expect(JSON.stringify(rolesOf(template).get('federation')!.policies)).not.toContain('oauth-secrets');
    }
  });

  it('a migration by URL: login and register get the URL and may read its signing key, nothing more; no other function', () => {
    const asking = ['login', 'register'];
    for (const template of [templates.cdkConfigured, templates.serverlessConfigured]) {
      const roles = rolesOf(template);
      const statements = (name: string) => roles.get(name)!.policies.flatMap((policy) => policy.policy.Statement);
      for (const name of asking) {
        expect(statements(name)).toContainEqual({ Effect: 'Allow', Action: 'ssm:GetParameter', Resource: 'arn:aws:ssm:eu-west-1:123456789012:parameter/passlane/dev/migration-secret' });
        expect(JSON.stringify(statements(name))).not.toContain('lambda:InvokeFunction');
        expect(environmentOf(template, name)).toMatchObject({
          PASSLANE_MIGRATION_URL: 'https://legacy.example.test/verify',
          PASSLANE_MIGRATION_SECRET_PARAMETER: '/passlane/dev/migration-secret',
          PASSLANE_MIGRATION_TIMEOUT_MS: '2000',
        });
        expect(environmentOf(template, name).PASSLANE_MIGRATION_FUNCTION).toBeUndefined();
      }
      for (const name of NAMES.filter((n) => !asking.includes(n))) expect(JSON.stringify(statements(name))).not.toMatch(/lambda:InvokeFunction|migration/);
    }
    // Not configured: neither the variables nor the permissions.
    for (const template of [templates.cdk, templates.serverless]) {
      for (const name of asking) {
        expect(Object.keys(environmentOf(template, name)).filter((key) => key.includes('MIGRATION'))).toEqual([]);
        // (the login's breaker item, migration#breaker, is allowed either way: no account's data)
        expect(JSON.stringify(rolesOf(template).get(name)!.policies)).not.toMatch(/lambda:InvokeFunction|migration-secret|MIGRATION/);
      }
    }
  });

  it('a migration through a Lambda function: login and register may invoke that one function (its alias), the same in both', () => {
    const [cdk, sls] = [templates.cdkFunctionMigration, templates.serverlessFunctionMigration];
    for (const name of NAMES) {
      expect(environmentOf(cdk, name)).toEqual(environmentOf(sls, name));
      expect(rolesOf(cdk).get(name)!.policies).toEqual(rolesOf(sls).get(name)!.policies);
    }
    for (const name of ['login', 'register']) {
      const statements = rolesOf(cdk).get(name)!.policies.flatMap((policy) => policy.policy.Statement);
      expect(statements).toContainEqual({ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: 'arn:aws:lambda:eu-west-1:123456789012:function:legacy-users:live' });
      expect(JSON.stringify(statements)).not.toContain('migration-secret');
      expect(environmentOf(cdk, name)).toMatchObject({ PASSLANE_MIGRATION_FUNCTION: MIGRATION_FUNCTION });
    }
    for (const name of NAMES.filter((n) => n !== 'login' && n !== 'register')) expect(JSON.stringify(rolesOf(cdk).get(name)!.policies)).not.toContain('lambda:InvokeFunction');
  });

  it('hooks by URL: the functions that mint tokens (or create accounts) get the URL and may read its secrets, no other', () => {
    for (const template of [templates.cdkConfigured, templates.serverlessConfigured]) {
      const statements = (name: string) => rolesOf(template).get(name)!.policies.flatMap((policy) => policy.policy.Statement);
      for (const name of TOKEN_HOOK_ASKERS) {
        expect(statements(name)).toContainEqual({ Effect: 'Allow', Action: 'ssm:GetParameter', Resource: 'arn:aws:ssm:eu-west-1:123456789012:parameter/passlane/dev/token-hook-secrets' });
        expect(environmentOf(template, name)).toMatchObject({
          PASSLANE_TOKEN_HOOK_URL: 'https://hooks.example.test/claims',
          PASSLANE_TOKEN_HOOK_SECRETS_PARAMETER: '/passlane/dev/token-hook-secrets',
          PASSLANE_TOKEN_HOOK_TIMEOUT_MS: '1500',
          PASSLANE_TOKEN_HOOK_ON_FAILURE: 'without_claims',
        });
      }
      for (const name of SIGNUP_HOOK_ASKERS) {
        expect(statements(name)).toContainEqual({ Effect: 'Allow', Action: 'ssm:GetParameter', Resource: 'arn:aws:ssm:eu-west-1:123456789012:parameter/passlane/dev/signup-hook-secrets' });
        expect(environmentOf(template, name)).toMatchObject({ PASSLANE_SIGNUP_HOOK_URL: 'https://hooks.example.test/signup', PASSLANE_SIGNUP_HOOK_SECRETS_PARAMETER: '/passlane/dev/signup-hook-secrets' });
      }
      for (const name of NAMES.filter((n) => !TOKEN_HOOK_ASKERS.includes(n))) {
        expect(JSON.stringify(statements(name))).not.toContain('token-hook');
        expect(Object.keys(environmentOf(template, name)).filter((key) => key.includes('TOKEN_HOOK'))).toEqual([]);
      }
      for (const name of NAMES.filter((n) => !SIGNUP_HOOK_ASKERS.includes(n))) {
        expect(JSON.stringify(statements(name))).not.toContain('signup-hook');
        expect(Object.keys(environmentOf(template, name)).filter((key) => key.includes('SIGNUP_HOOK'))).toEqual([]);
      }
    }
    // Not configured: neither the variables nor the permissions.
    for (const template of [templates.cdk, templates.serverless]) {
      for (const name of NAMES) {
        expect(Object.keys(environmentOf(template, name)).filter((key) => key.includes('_HOOK_'))).toEqual([]);
        expect(JSON.stringify(rolesOf(template).get(name)!.policies)).not.toMatch(/hook/i);
      }
    }
  });

  it('hooks as Lambda functions: each asking function may invoke that one function, and only those, the same in both', () => {
    const [cdk, sls] = [templates.cdkFunctionHooks, templates.serverlessFunctionHooks];
    const invoked = (name: string) =>
      rolesOf(cdk)
        .get(name)!
        .policies.flatMap((policy) => policy.policy.Statement)
        .filter((statement) => statement.Action === 'lambda:InvokeFunction')
        .map((statement) => statement.Resource as string)
        .sort();
    for (const name of NAMES) {
      expect(environmentOf(cdk, name)).toEqual(environmentOf(sls, name));
      expect(rolesOf(cdk).get(name)!.policies).toEqual(rolesOf(sls).get(name)!.policies);
      const expected = [
        ...(TOKEN_HOOK_ASKERS.includes(name) ? [`arn:aws:lambda:eu-west-1:123456789012:function:${TOKEN_HOOK_FUNCTION}`] : []),
        ...(SIGNUP_HOOK_ASKERS.includes(name) ? [`arn:aws:lambda:eu-west-1:123456789012:function:${SIGNUP_HOOK_FUNCTION}`] : []),
      ].sort();
      expect(invoked(name), name).toEqual(expected);
      expect(JSON.stringify(rolesOf(cdk).get(name)!.policies)).not.toContain('hook-secrets');
    }
    expect(environmentOf(cdk, 'token')).toMatchObject({ PASSLANE_TOKEN_HOOK_FUNCTION: TOKEN_HOOK_FUNCTION });
    expect(environmentOf(cdk, 'register')).toMatchObject({ PASSLANE_SIGNUP_HOOK_FUNCTION: SIGNUP_HOOK_FUNCTION });
  });

  it('the construct takes a migration function by ARN or partial ARN too (serverless.yml: by name only)', () => {
    const arn = 'arn:aws:lambda:us-east-1:210987654321:function:legacy-users:live';
    for (const [functionName, expected] of [
      [arn, arn],
      ['210987654321:function:legacy-users', 'arn:aws:lambda:eu-west-1:210987654321:function:legacy-users'],
    ] as const) {
      const { template, stack, auth } = synthConstruct(join(workDir, `cdk-${functionName.length}.out`), { bundleDirectory: bundles, migration: { functionName } });
      const shaped = serverlessShaped(template, serverlessLogicalIds(stack, auth));
      const login = rolesOf(shaped).get('login')!.policies.flatMap((policy) => policy.policy.Statement);
      expect(login).toContainEqual({ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: expected });
    }
  });

  it('account events: the events function may PutEvents on the named bus alone, is told its name, and its alarms notify the topic; unset, neither', () => {
    const statementsOf = (template: CfnTemplate, name: string) => rolesOf(template).get(name)!.policies.flatMap((policy) => policy.policy.Statement);
    for (const template of [templates.cdkConfigured, templates.serverlessConfigured]) {
      expect(statementsOf(template, 'events')).toContainEqual({ Effect: 'Allow', Action: 'events:PutEvents', Resource: 'arn:aws:events:eu-west-1:123456789012:event-bus/team-events' });
      expect(environmentOf(template, 'events').PASSLANE_EVENT_BUS).toBe('team-events');
      // Recording on, from one setting: the construct's events.enabled as serverless.yml's --param=events=on.
      expect(environmentOf(template, 'register').PASSLANE_EVENTS).toBe('on');
      // Sign-in events: the construct's events.signIn as --param=eventsSignIn=on, to every function that starts sessions alone.
      for (const name of ['login', 'passkeyLogin', 'federation']) expect(environmentOf(template, name).PASSLANE_EVENTS_SIGN_IN, name).toBe('on');
      expect(environmentOf(template, 'register').PASSLANE_EVENTS_SIGN_IN).toBeUndefined();
      for (const [, alarm] of ofType(template, 'AWS::CloudWatch::Alarm')) expect(resolverFor(template)(alarm.Properties!.AlarmActions)).toEqual([ALARM_TOPIC]);
    }
    for (const template of [templates.cdk, templates.serverless]) {
      expect(JSON.stringify(statementsOf(template, 'events'))).not.toContain('events:PutEvents');
      expect(environmentOf(template, 'events').PASSLANE_EVENT_BUS).toBeUndefined();
      expect(environmentOf(template, 'register').PASSLANE_EVENTS).toBe('off');
      expect(environmentOf(template, 'login').PASSLANE_EVENTS_SIGN_IN).toBe('off');
      for (const [, alarm] of ofType(template, 'AWS::CloudWatch::Alarm')) expect(resolverFor(template)({ AlarmActions: alarm.Properties!.AlarmActions })).toEqual({});
    }
    // The stream is read by the events function alone, and only it may send to its queue or publish events.
    for (const template of [templates.cdkConfigured, templates.serverlessConfigured]) {
      for (const name of NAMES.filter((n) => n !== 'events')) expect(JSON.stringify(statementsOf(template, name))).not.toMatch(/stream|sqs:|events:PutEvents/);
      expect(statementsOf(template, 'events')).toContainEqual({
        Effect: 'Allow',
        Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        Resource: `arn:aws:dynamodb:eu-west-1:123456789012:table/${SERVERLESS_TABLE}/stream/*`,
      });
      expect(statementsOf(template, 'events')).toContainEqual({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: 'arn:aws:sqs:eu-west-1:123456789012:passlane-test-EventsDeadLetterQueue-GENERATED' });
    }
  });

  it('browser origins: PASSLANE_CORS_ORIGINS on every function from one setting, unset by default', () => {
    for (const template of [templates.cdkConfigured, templates.serverlessConfigured]) {
      for (const name of NAMES) expect(environmentOf(template, name).PASSLANE_CORS_ORIGINS).toBe('https://app.example.test,https://admin.example.test');
    }
    for (const template of [templates.cdk, templates.serverless]) {
      for (const name of NAMES) expect(environmentOf(template, name).PASSLANE_CORS_ORIGINS).toBeUndefined();
    }
  });

  it('OAuth claims: client_id, scopes and the required scope on every function from one setting each, unset by default', () => {
    const OAUTH = { PASSLANE_OAUTH_CLIENT_ID: 'orders-app', PASSLANE_TOKEN_SCOPES: 'orders:read orders:write', PASSLANE_REQUIRED_SCOPE: 'orders:read' };
    for (const template of [templates.cdkConfigured, templates.serverlessConfigured]) {
      for (const name of NAMES) expect(environmentOf(template, name)).toMatchObject(OAUTH);
    }
    for (const template of [templates.cdk, templates.serverless]) {
      for (const name of NAMES) for (const variable of Object.keys(OAUTH)) expect(environmentOf(template, name)[variable]).toBeUndefined();
    }
  });

  it('without mail no role may send, and the mail variables stay empty as in serverless.yml', () => {
    for (const name of ['register', 'login', 'recovery']) {
      expect(JSON.stringify(rolesOf(templates.cdk).get(name)!.policies)).not.toContain('ses:');
      expect(environmentOf(templates.cdk, name)).toMatchObject({ PASSLANE_MAIL_FROM: '', PASSLANE_SES_IDENTITY_ARN: '' });
    }
  });
});

describe('PasslaneAuth', () => {
  it('takes only zips packaged for its architecture', () => {
    expect(() => bundleZips(bundles, 'x86_64')).toThrow(/holds zips for arm64, not x86_64: run `npm run package -- --arch x86_64 --zips-only`/);
    expect(() => bundleZips(join(workDir, 'nowhere'), 'arm64')).toThrow(/no manifest\.json/);
    const incomplete = placeholderBundles(join(workDir, 'incomplete'), 'arm64', PASSLANE_FUNCTIONS.slice(0, 2));
    expect(() => bundleZips(incomplete, 'arm64')).toThrow(/token\.zip is missing/);
  });

  it('exposes the API URL, the table, the JWKS URL and both authorizers for the team\'s own routes', () => {
    const app = new App({ outdir: join(workDir, 'cdk-routes.out'), builtinCloudFormationValidation: false });
    const stack = new Stack(app, 'team');
    const auth = new PasslaneAuth(stack, 'Auth', { bundleDirectory: bundles });
    const resolved = stack.resolve({ url: auth.apiUrl, jwks: auth.jwksUrl, table: auth.table.tableName }) as Record<string, unknown>;
    const ref = (construct: IConstruct) => ({ Ref: stack.getLogicalId(construct.node.defaultChild as CfnElement) });
    expect(JSON.stringify(resolved.url)).toContain('.execute-api.');
    expect(JSON.stringify(resolved.jwks)).toContain('/.well-known/jwks.json');
    expect(resolved.table).toEqual(ref(auth.table));

    const profile = new LambdaFunction(stack, 'Profile', { runtime: Runtime.NODEJS_22_X, handler: 'index.handler', code: Code.fromInline('exports.handler = async () => ({})') });
    auth.api.addRoutes({ path: '/profile', methods: [HttpMethod.GET], integration: new HttpLambdaIntegration('ProfileIntegration', profile), authorizer: auth.jwtAuthorizer });
    auth.api.addRoutes({ path: '/orders', methods: [HttpMethod.GET], integration: new HttpLambdaIntegration('OrdersIntegration', profile), authorizer: auth.sessionAuthorizer });
    const routes = Object.values((Template.fromStack(stack).toJSON() as CfnTemplate).Resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route');
    const byKey = Object.fromEntries(routes.map((r) => [r.Properties!.RouteKey, r.Properties]));
    expect(byKey['GET /profile']).toMatchObject({ AuthorizationType: 'JWT', AuthorizerId: ref(auth.node.findChild('JwtAuthorizer')) });
    expect(byKey['GET /orders']).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: ref(auth.node.findChild('SessionAuthorizer')) });
  });
});
