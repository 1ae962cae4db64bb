/**
 * `npm run generate:infra [-- --check]`: writes, from the one description in packages/server/src/cdk/functions.ts
 * (which the CDK construct reads too), serverless.yml's two generated sections (`functions`, and
 * the `environment` every function gets) and infra/iam-roles.yml (one role per function).
 * `--check` writes nothing and fails when a committed file differs; test/service-description.test.ts
 * checks the same, so a description change without regenerating fails the tests.
 *
 * Generated rather than checked by hand: a permission added to the description then reaches the
 * Serverless template and the CDK template alike, and nobody keeps two copies of a role in step.
 * The sections stay inside serverless.yml (between marker comments), so it still reads, and
 * parses, as a whole Serverless service.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeGeneratedFiles } from '../write-generated-files.js';
import { Document, isCollection, isMap, isPair, isScalar, isSeq, visit, type Node } from 'yaml';
import {
  apiGatewayRoutes,
  capitalized,
  COMMON_ENVIRONMENT,
  DEAD_LETTER_RETENTION_SECONDS,
  HANDLER,
  STREAM_READ_ACTIONS,
  kebabCase,
  LOG_RETENTION_DAYS,
  PASSLANE_FUNCTIONS,
  SECRETS,
  SETTINGS,
  streamAlarms,
  streamFilterPattern,
  type EnvSource,
  type FunctionDescription,
  type Grant,
  type SecretName,
  type SettingName,
} from '../../packages/server/src/cdk/functions.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SERVICE_FILE = 'serverless.yml';
export const ROLES_FILE = 'infra/iam-roles.yml';
export const STREAM_TRIGGERS_FILE = 'infra/stream-triggers.yml';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** The serverless.yml custom entry or param holding each secret's parameter name. */
const SECRET_PARAMS: Record<SecretName, string> = {
  pepperKeys: 'pepperKeysParameter',
  jwtPrivateKey: 'jwtPrivateKeyParameter',
  fingerprintKey: 'fingerprintKeyParameter',
  mfaKeys: 'mfaKeysParameter',
  migrationSecret: 'migrationSecretParameter',
  oauthSecrets: 'oauthSecretsParameter',
  webhooks: 'webhooksParameter',
  tokenHookSecrets: 'tokenHookSecretsParameter',
  signupHookSecrets: 'signupHookSecretsParameter',
};

/** A setting as serverless.yml resolves it; null defaults leave the variable out (osls drops null). */
function settingValue(name: SettingName): string {
  const setting = SETTINGS[name];
  if (setting.kind === 'custom') return `\${self:custom.${name}}`;
  return setting.default === null ? `\${param:${name}, null}` : `\${param:${name}, '${setting.default}'}`;
}

/** Required secrets: custom.<x>Parameter (with its /passlane/<stage>/ default); optional ones a param, '' when unset. */
function secretName(secret: SecretName, forEnvironment: boolean): string {
  const param = SECRET_PARAMS[secret];
  if (!SECRETS[secret].optional) return `\${self:custom.${param}}`;
  return forEnvironment ? `\${param:${param}, null}` : `\${param:${param}, ''}`;
}

function envValue(source: EnvSource): Json {
  switch (source.kind) {
    case 'literal':
      return source.value;
    case 'table':
      // A plain name, the table's own (infra/dynamodb-table.yml): a Ref would reach serverless-offline's functions as an object.
      return '${self:custom.tableName}';
    case 'parameterName':
      return secretName(source.secret, true);
    case 'setting':
      return settingValue(source.setting);
  }
}

const environment = (variables: Readonly<Record<string, EnvSource>>): Record<string, Json> =>
  Object.fromEntries(Object.entries(variables).map(([name, source]) => [name, envValue(source)]));

function memorySize(fn: FunctionDescription): Json {
  return typeof fn.memory === 'number' ? fn.memory : settingValue(fn.memory.setting);
}

function functionEntry(fn: FunctionDescription): Record<string, Json> {
  return {
    handler: HANDLER,
    role: `${capitalized(fn.name)}Role`,
    memorySize: memorySize(fn),
    timeout: fn.timeout,
    ...(fn.reservedConcurrency !== undefined && { reservedConcurrency: fn.reservedConcurrency }),
    package: { artifact: `\${self:custom.artifacts}/${fn.name}.zip` },
    ...(Object.keys(fn.environment).length > 0 && { environment: environment(fn.environment) }),
    ...(fn.routes.length > 0 && { events: apiGatewayRoutes(fn).map((route) => httpApiEvent(fn, route)) }),
    ...(fn.tableStream !== undefined && { events: [tableStreamEvent(fn)] }),
  };
}

/** The function's own dead-letter queue (infra/stream-triggers.yml). */
const deadLetterQueueId = (fn: FunctionDescription) => `${capitalized(fn.name)}DeadLetterQueue`;

/**
 * osls's `stream` event on the table's stream: its event source mapping
 * (`<Name>EventSourceMappingDynamodbUsersTable`), which the CDK construct writes property for property.
 */
function tableStreamEvent(fn: FunctionDescription): Json {
  const trigger = fn.tableStream!;
  return {
    stream: {
      type: 'dynamodb',
      arn: { 'Fn::GetAtt': ['UsersTable', 'StreamArn'] },
      startingPosition: trigger.startingPosition,
      batchSize: trigger.batchSize,
      batchWindow: trigger.maximumBatchingWindowSeconds,
      parallelizationFactor: trigger.parallelizationFactor,
      maximumRetryAttempts: trigger.maximumRetryAttempts,
      maximumRecordAgeInSeconds: trigger.maximumRecordAgeSeconds,
      bisectBatchOnFunctionError: true,
      functionResponseType: 'ReportBatchItemFailures',
      destinations: { onFailure: { arn: { 'Fn::GetAtt': [deadLetterQueueId(fn), 'Arn'] }, type: 'sqs' } },
      filterPatterns: [streamFilterPattern(trigger) as Json],
    },
  };
}

/** `httpApi: METHOD /path`, or with API Gateway's IAM authorization its long form (osls: `authorizer: { type: aws_iam }`). */
function httpApiEvent(fn: FunctionDescription, route: string): Json {
  if (fn.routeAuthorization !== 'iam') return { httpApi: route };
  const [method, path] = route.split(' ') as [string, string];
  return { httpApi: { method, path, authorizer: { type: 'aws_iam' } } };
}

/** Conditions of optional statements: on a setting or secret being non-empty. */
const conditionOfSetting = (setting: SettingName) => `Has${capitalized(setting)}`;
const conditionOfSecret = (secret: SecretName) => `Has${capitalized(SECRET_PARAMS[secret])}`;
const notEmpty = (value: string): Json => ({ 'Fn::Not': [{ 'Fn::Equals': [value, ''] }] });
const onlyIf = (condition: string, statement: Json): Json => ({ 'Fn::If': [condition, statement, { Ref: 'AWS::NoValue' }] });

const TABLE_ARN: Json = { 'Fn::GetAtt': ['UsersTable', 'Arn'] };
const parameterArn = (secret: SecretName): Json => ({ 'Fn::Sub': `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${secretName(secret, false)}` });
const oneOrMany = (values: Json[]): Json => (values.length === 1 ? values[0]! : values);

/** SES authorizes the identity sent as (FromEmailAddressIdentityArn, always set) and, when one is used, the configuration set. */
const SEND_MAIL: Json = onlyIf('SendsMail', {
  Effect: 'Allow',
  Action: 'ses:SendEmail',
  Resource: {
    'Fn::If': [
      'HasSesConfigurationSet',
      [
        '${self:custom.sesIdentity}',
        {
          'Fn::Sub': [
            'arn:${AWS::Partition}:ses:${SesRegion}:${AWS::AccountId}:configuration-set/${self:custom.sesConfigurationSet}',
            { SesRegion: { 'Fn::Select': [3, { 'Fn::Split': [':', '${self:custom.sesIdentity}'] }] } },
          ],
        },
      ],
      '${self:custom.sesIdentity}',
    ],
  },
});

/** With a customer-managed key for the parameters: kms:Decrypt on it, through SSM only. */
const DECRYPT_THROUGH_SSM: Json = onlyIf('HasSecretsKmsKey', {
  Effect: 'Allow',
  Action: 'kms:Decrypt',
  Resource: '${self:custom.secretsKmsKeyArn}',
  Condition: { StringEquals: { 'kms:ViaService': { 'Fn::Sub': 'ssm.${AWS::Region}.${AWS::URLSuffix}' } } },
});

function grantStatement(fn: FunctionDescription, grant: Grant): Json {
  switch (grant.kind) {
    case 'items':
      return {
        Effect: 'Allow',
        Action: grant.action,
        Resource: TABLE_ARN,
        Condition: { [grant.exact ? 'ForAllValues:StringEquals' : 'ForAllValues:StringLike']: { 'dynamodb:LeadingKeys': [...grant.keys] } },
      };
    case 'index':
      return { Effect: 'Allow', Action: grant.action, Resource: { 'Fn::Sub': `\${UsersTable.Arn}/index/${grant.index}` } };
    case 'scan':
      return { Effect: 'Allow', Action: 'dynamodb:Scan', Resource: TABLE_ARN };
    case 'parameters': {
      const optional = grant.secrets.filter((secret) => SECRETS[secret].optional);
      const statement = { Effect: 'Allow', Action: 'ssm:GetParameter', Resource: oneOrMany(grant.secrets.map(parameterArn)) };
      if (optional.length === 0) return statement;
      if (grant.secrets.length !== 1) throw new Error(`an optional secret (${optional.join(', ')}) needs a grant of its own`);
      return onlyIf(conditionOfSecret(optional[0]!), statement);
    }
    case 'sendMail':
      return SEND_MAIL;
    case 'invokeFunction':
      return onlyIf(conditionOfSetting(grant.setting), {
        Effect: 'Allow',
        Action: 'lambda:InvokeFunction',
        Resource: { 'Fn::Sub': `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:\${param:${grant.setting}, ''}` },
      });
    case 'readTableStream':
      return { Effect: 'Allow', Action: [...STREAM_READ_ACTIONS], Resource: { 'Fn::Sub': '${UsersTable.Arn}/stream/*' } };
    case 'sendToDeadLetterQueue':
      if (fn.tableStream === undefined) throw new Error(`${fn.name}: a dead-letter queue grant without a tableStream trigger`);
      return { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [deadLetterQueueId(fn), 'Arn'] } };
    case 'putEvents':
      return onlyIf(conditionOfSetting(grant.setting), {
        Effect: 'Allow',
        Action: 'events:PutEvents',
        Resource: { 'Fn::Sub': `arn:\${AWS::Partition}:events:\${AWS::Region}:\${AWS::AccountId}:event-bus/\${param:${grant.setting}, ''}` },
      });
  }
}

/** Every statement of a function's role with the comment above it: its log group first, KMS last. */
export function roleStatements(fn: FunctionDescription): Array<{ statement: Json; why?: string }> {
  const logs = { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [`${capitalized(fn.name)}LogGroup`, 'Arn'] } };
  const statements: Array<{ statement: Json; why?: string }> = [{ statement: logs }, ...fn.grants.map((grant) => ({ statement: grantStatement(fn, grant), why: grant.why }))];
  if (fn.grants.some((grant) => grant.kind === 'parameters')) statements.push({ statement: DECRYPT_THROUGH_SSM });
  return statements;
}

function conditions(functions: readonly FunctionDescription[]): Record<string, Json> {
  const optional: Record<string, Json> = {};
  for (const fn of functions) {
    for (const grant of fn.grants) {
      if (grant.kind === 'invokeFunction' || grant.kind === 'putEvents') optional[conditionOfSetting(grant.setting)] = notEmpty(`\${param:${grant.setting}, ''}`);
      if (grant.kind === 'parameters') {
        for (const secret of grant.secrets.filter((s) => SECRETS[s].optional)) optional[conditionOfSecret(secret)] = notEmpty(secretName(secret, false));
      }
    }
  }
  return {
    HasSecretsKmsKey: notEmpty('${self:custom.secretsKmsKeyArn}'),
    HasSesIdentityArn: notEmpty('${self:custom.sesIdentityArn}'),
    HasMailFrom: notEmpty('${self:custom.mailFrom}'),
    SendsMail: { 'Fn::Or': [{ Condition: 'HasSesIdentityArn' }, { Condition: 'HasMailFrom' }] },
    HasSesConfigurationSet: notEmpty('${self:custom.sesConfigurationSet}'),
    ...optional,
  };
}

const LAMBDA_TRUST: Json = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
};

/** Wraps prose into comment lines of at most `width` characters (yaml prefixes each with '#'). */
function comment(text: string, width = 98): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => ` ${l}`).join('\n');
}

function keyNode(map: unknown, key: string): Node {
  if (!isMap(map)) throw new Error(`not a map at ${key}`);
  const pair = map.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === key);
  if (pair === undefined || !isPair(pair)) throw new Error(`no key ${key}`);
  return pair.key as Node;
}

/**
 * A YAML document of `value`: no anchors (each statement spelled out), YAML 1.1 quoting (so
 * `'2012-10-17'` stays a string for every parser), short lists and maps of plain values on one line.
 */
function yamlDocument(value: unknown): Document {
  const doc = new Document(value, { version: '1.1', aliasDuplicateObjects: false });
  visit(doc, {
    Seq(_, node) {
      if (node.items.every((item) => isScalar(item)) && JSON.stringify(node.toJSON()).length <= 70) node.flow = true;
    },
    // Intrinsics and one-key entries such as `{Ref: UsersTable}`, `{httpApi: POST /login}` or `{type: aws_iam}`.
    Map(_, node) {
      const [pair, ...more] = node.items;
      const key = isScalar(pair?.key) ? String(pair.key.value) : '';
      const inline = /^(Fn::|Ref$|Condition$|Service$|httpApi$|artifact$|type$)/.test(key) && (isScalar(pair?.value) || isCollection(pair?.value));
      if (more.length === 0 && inline && JSON.stringify(node.toJSON()).length <= 70) node.flow = true;
    },
  });
  return doc;
}

const GENERATED = (what: string) =>
  comment(
    `Generated by \`npm run generate:infra\` from packages/server/src/cdk/functions.ts, the one description of the functions that the CDK construct (passlane/cdk) reads too: ${what} Do not edit; change the description and regenerate (test/service-description.test.ts fails on a difference). infra/README.md explains each role.`,
  );

/** `functions:` at the top level of serverless.yml, each function with its reason above it. */
export function renderFunctionsSection(functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): string {
  const doc = yamlDocument({ functions: Object.fromEntries(functions.map((fn) => [fn.name, functionEntry(fn)])) });
  const functionsMap = doc.get('functions', true);
  for (const fn of functions) keyNode(functionsMap, fn.name).commentBefore = comment(fn.why);
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** `environment:` under `provider:` (every function): POWERTOOLS_SERVICE_NAME, the JWT issuer and audience, ... */
export function renderEnvironmentSection(): string {
  const text = yamlDocument({ environment: environment(COMMON_ENVIRONMENT) }).toString({ lineWidth: 0, flowCollectionPadding: false });
  return text.replace(/^(?=.)/gm, '  ');
}

const begin = (section: string) => `# generated: ${section} (\`npm run generate:infra\` from packages/server/src/cdk/functions.ts; do not edit)`;
const end = (section: string) => `# end of generated: ${section}`;

/** serverless.yml with its generated sections replaced; the markers must be there, each once. */
export function withGeneratedSections(serviceYml: string, functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): string {
  const sections: Array<[string, string, string]> = [
    ['log retention', '  ', `  logRetentionInDays: ${LOG_RETENTION_DAYS}\n`],
    ['environment', '  ', renderEnvironmentSection()],
    ['functions', '', renderFunctionsSection(functions)],
  ];
  let text = serviceYml;
  for (const [section, indent, content] of sections) {
    const start = `${indent}${begin(section)}\n`;
    const stop = `${indent}${end(section)}\n`;
    const from = text.indexOf(start);
    const to = text.indexOf(stop);
    if (from < 0 || to < from || text.indexOf(start, from + 1) >= 0) throw new Error(`${SERVICE_FILE}: the markers of the generated section "${section}" are missing or repeated`);
    text = `${text.slice(0, from + start.length)}${content}${text.slice(to)}`;
  }
  return text;
}

export function renderRolesFile(functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): string {
  const resources = Object.fromEntries(
    functions.map((fn) => [
      `${capitalized(fn.name)}Role`,
      {
        Type: 'AWS::IAM::Role',
        Properties: {
          AssumeRolePolicyDocument: LAMBDA_TRUST,
          Policies: [{ PolicyName: kebabCase(fn.name), PolicyDocument: { Version: '2012-10-17', Statement: roleStatements(fn).map((s) => s.statement) } }],
        },
      },
    ]),
  );
  const doc = yamlDocument({ Conditions: conditions(functions), Resources: resources });
  doc.commentBefore = GENERATED(
    'one role per function, each allowed exactly what its code calls, item access limited to key prefixes (dynamodb:LeadingKeys). Logs: its own log group only, never CreateLogGroup. Mail, KMS and the migration only when configured (the conditions below).',
  );
  for (const fn of functions) {
    const statements = doc.getIn(['Resources', `${capitalized(fn.name)}Role`, 'Properties', 'Policies', 0, 'PolicyDocument', 'Statement'], true);
    if (!isSeq(statements)) throw new Error(`no statements for ${fn.name}`);
    roleStatements(fn).forEach(({ why }, index) => {
      if (why !== undefined) (statements.items[index] as Node).commentBefore = comment(why, 90);
    });
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** A CloudWatch alarm's dimension value: the dead-letter queue's name or the function's. */
function alarmDimension(fn: FunctionDescription, of: 'deadLetterQueue' | 'function'): Json {
  return of === 'deadLetterQueue'
    ? { Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterQueueId(fn), 'QueueName'] } }
    : { Name: 'FunctionName', Value: { Ref: `${capitalized(fn.name)}LambdaFunction` } };
}

/** Each stream-triggered function's dead-letter queue and alarms (the CDK construct makes the same). */
export function renderStreamTriggersFile(functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): string {
  const triggered = functions.filter((fn) => fn.tableStream !== undefined);
  const resources: Record<string, Json> = {};
  for (const fn of triggered) {
    // Metadata of failed batches only (the shard, the sequence numbers), never an item: the stream holds keys alone.
    resources[deadLetterQueueId(fn)] = { Type: 'AWS::SQS::Queue', Properties: { MessageRetentionPeriod: DEAD_LETTER_RETENTION_SECONDS, SqsManagedSseEnabled: true } };
    for (const alarm of streamAlarms(fn)) {
      resources[`${capitalized(fn.name)}${alarm.suffix}`] = {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: {
          AlarmDescription: alarm.why,
          Namespace: alarm.namespace,
          MetricName: alarm.metric,
          Dimensions: [alarmDimension(fn, alarm.of)],
          Statistic: alarm.statistic,
          Period: alarm.periodSeconds,
          EvaluationPeriods: alarm.evaluationPeriods,
          Threshold: alarm.threshold,
          ComparisonOperator: 'GreaterThanThreshold',
          // No data is no failure: an idle queue or function reports nothing.
          TreatMissingData: 'notBreaching',
          AlarmActions: { 'Fn::If': ['HasAlarmTopicArn', ["${param:alarmTopicArn, ''}"], { Ref: 'AWS::NoValue' }] },
        },
      };
    }
  }
  const doc = yamlDocument({ Conditions: { HasAlarmTopicArn: notEmpty("${param:alarmTopicArn, ''}") }, Resources: resources });
  doc.commentBefore = GENERATED(
    'the dead-letter queue and the alarms of each function the table\'s stream invokes (its event source mapping is its `stream` event in serverless.yml). The alarms notify the SNS topic of the alarmTopicArn param when one is given.',
  );
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** Each generated file's path (from the repository root) and content; `serviceYml` is serverless.yml as it is. */
export function renderServerlessInfra(
  functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS,
  serviceYml: string = readFileSync(join(root, SERVICE_FILE), 'utf8'),
): Record<string, string> {
  return {
    [SERVICE_FILE]: withGeneratedSections(serviceYml, functions),
    [ROLES_FILE]: renderRolesFile(functions),
    [STREAM_TRIGGERS_FILE]: renderStreamTriggersFile(functions),
  };
}

function main(argv: string[]): number {
  return writeGeneratedFiles(root, renderServerlessInfra(), {
    check: argv.includes('--check'),
    source: 'packages/server/src/cdk/functions.ts',
    command: 'npm run generate:infra',
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
