/**
 * The packaged CloudFormation template, made concrete: each function's role with its policy
 * statements resolved to ARNs (Fn::GetAtt, Fn::Sub, Ref, Fn::Join, Fn::Split, Fn::Select, Fn::If
 * on the template's Conditions, Ref AWS::NoValue), and its environment, for a fixed account,
 * region and partition. An intrinsic this resolver does not know throws, so nothing is evaluated
 * half-resolved.
 */
import { LAMBDA_FUNCTIONS } from '../../../scripts/packaging/lambda-functions.js';

export const ACCOUNT_ID = '123456789012';
export const REGION = 'eu-west-1';
export const PARTITION = 'aws';
const URL_SUFFIX = 'amazonaws.com';
/** What CloudFormation's table stream ARNs end with: the time the stream was turned on. */
export const STREAM_LABEL = '2026-01-01T00:00:00.000';

interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
}
export interface Template {
  Resources: Record<string, Resource>;
  Conditions?: Record<string, unknown>;
}

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}
export interface PolicyDocument {
  Version: string;
  Statement: PolicyStatement[];
}

export interface FunctionRole {
  /** The function's key in serverless.yml, e.g. "login". */
  functionName: string;
  /** The role's logical id, e.g. "LoginRole". */
  roleId: string;
  /** As the function would assume it. */
  principal: string;
  policies: Array<{ name: string; policy: PolicyDocument }>;
}

/**
 * Resolves one value of the template. `physicalIds` names what CloudFormation would create
 * (a table's generated name, the API id); a table the template names (TableName) has that name,
 * as CloudFormation gives it. Ref of anything else throws.
 */
export function createResolver(template: Template, physicalIds: Record<string, string>) {
  const tableName = (logicalId: string): string | undefined => {
    const resource = template.Resources[logicalId];
    return resource?.Type === 'AWS::DynamoDB::Table' && typeof resource.Properties?.TableName === 'string' ? resource.Properties.TableName : undefined;
  };
  const arnOf = (logicalId: string): string => {
    const resource = template.Resources[logicalId];
    const name = tableName(logicalId) ?? physicalIds[logicalId] ?? (resource?.Properties?.LogGroupName as string | undefined);
    if (resource === undefined || name === undefined) throw new Error(`cannot resolve the Arn of ${logicalId}`);
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table':
        return `arn:${PARTITION}:dynamodb:${REGION}:${ACCOUNT_ID}:table/${name}`;
      case 'AWS::Logs::LogGroup':
        return `arn:${PARTITION}:logs:${REGION}:${ACCOUNT_ID}:log-group:${name}:*`;
      case 'AWS::SQS::Queue':
        return `arn:${PARTITION}:sqs:${REGION}:${ACCOUNT_ID}:${name}`;
      default:
        throw new Error(`cannot resolve the Arn of ${logicalId} (${resource.Type})`);
    }
  };
  const ref = (name: string): unknown => {
    const pseudo: Record<string, unknown> = {
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT_ID,
      'AWS::Partition': PARTITION,
      'AWS::URLSuffix': URL_SUFFIX,
      'AWS::NoValue': NO_VALUE,
    };
    if (name in pseudo) return pseudo[name];
    const physical = tableName(name) ?? physicalIds[name];
    if (physical === undefined) throw new Error(`cannot resolve Ref ${name}`);
    return physical;
  };
  const sub = (text: string, variables: Record<string, unknown> = {}): string =>
    text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
      if (name in variables) return String(resolve(variables[name]));
      if (name.endsWith('.Arn')) return arnOf(name.slice(0, -'.Arn'.length));
      return String(ref(name));
    });
  const condition = (name: string): boolean => {
    const definition = template.Conditions?.[name];
    if (definition === undefined) throw new Error(`no condition ${name}`);
    return Boolean(resolve(definition));
  };

  function resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(resolve).filter((item) => item !== NO_VALUE);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    const [intrinsic, argument] = entries[0] ?? [];
    if (entries.length === 1 && intrinsic !== undefined && (intrinsic.startsWith('Fn::') || intrinsic === 'Ref' || intrinsic === 'Condition')) {
      const args = argument as unknown[];
      switch (intrinsic) {
        case 'Ref':
          return ref(argument as string);
        case 'Fn::GetAtt': {
          const [id, attribute] = typeof argument === 'string' ? argument.split('.') : (args as string[]);
          // A table's stream: its ARN is the table's with the stream's label (a time) after it.
          if (attribute === 'StreamArn' && template.Resources[id!]?.Type === 'AWS::DynamoDB::Table') return `${arnOf(id!)}/stream/${STREAM_LABEL}`;
          if (attribute !== 'Arn') throw new Error(`cannot resolve Fn::GetAtt ${id}.${attribute}`);
          return arnOf(id!);
        }
        case 'Fn::Sub':
          return typeof argument === 'string' ? sub(argument) : sub(args[0] as string, args[1] as Record<string, unknown>);
        case 'Fn::Join':
          return (resolve(args[1]) as unknown[]).join(args[0] as string);
        case 'Fn::Split':
          return String(resolve(args[1])).split(args[0] as string);
        case 'Fn::Select': {
          // As CloudFormation: an index past the list's end is an error, not undefined.
          const list = resolve(args[1]) as unknown[];
          const index = Number(resolve(args[0]));
          if (!Number.isInteger(index) || index < 0 || index >= list.length) throw new Error(`Fn::Select: no item ${index} in ${JSON.stringify(list)}`);
          return list[index];
        }
        case 'Fn::If':
          return condition(args[0] as string) ? resolve(args[1]) : resolve(args[2]);
        case 'Fn::Equals':
          return JSON.stringify(resolve(args[0])) === JSON.stringify(resolve(args[1]));
        case 'Fn::Not':
          return !resolve(args[0]);
        case 'Fn::And':
          return args.every((arg) => resolve(arg));
        case 'Fn::Or':
          return args.some((arg) => resolve(arg));
        case 'Condition':
          return condition(argument as string);
        default:
          throw new Error(`cannot resolve ${intrinsic}`);
      }
    }
    const resolved = Object.entries(value).map(([key, item]) => [key, resolve(item)] as const);
    return Object.fromEntries(resolved.filter(([, item]) => item !== NO_VALUE));
  }
  return resolve;
}

const NO_VALUE = Symbol('AWS::NoValue');

const logicalIdOf = (functionName: string) => `${functionName[0]!.toUpperCase()}${functionName.slice(1)}LambdaFunction`;

function functionResource(template: Template, functionName: string): Resource {
  const resource = template.Resources[logicalIdOf(functionName)];
  if (resource?.Type !== 'AWS::Lambda::Function') throw new Error(`no function ${functionName} in the template`);
  return resource;
}

/** Every function of the service with its role, resolved. */
export function functionRoles(template: Template, resolve: (value: unknown) => unknown): FunctionRole[] {
  return LAMBDA_FUNCTIONS.map(({ name }) => {
    const role = functionResource(template, name).Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined;
    const roleId = role?.['Fn::GetAtt']?.[0];
    const roleResource = roleId === undefined ? undefined : template.Resources[roleId];
    if (roleId === undefined || roleResource?.Type !== 'AWS::IAM::Role') throw new Error(`${name}: its role is not a role of this template`);
    const properties = roleResource.Properties ?? {};
    // Only inline policies can be evaluated here; anything else attached would go unchecked.
    for (const unsupported of ['ManagedPolicyArns', 'PermissionsBoundary']) {
      if (properties[unsupported] !== undefined) throw new Error(`${roleId}: ${unsupported} is not evaluated by this check`);
    }
    const policies = ((properties.Policies ?? []) as Array<{ PolicyName: unknown; PolicyDocument: unknown }>).map((policy) => ({
      name: String(resolve(policy.PolicyName)),
      policy: resolve(policy.PolicyDocument) as PolicyDocument,
    }));
    return { functionName: name, roleId, principal: `arn:${PARTITION}:sts::${ACCOUNT_ID}:assumed-role/${roleId}/${name}`, policies };
  });
}

/** The function's environment as deployed, and its FunctionName. */
export function functionEnvironment(template: Template, functionName: string, resolve: (value: unknown) => unknown) {
  const properties = functionResource(template, functionName).Properties ?? {};
  const variables = (resolve((properties.Environment as { Variables?: unknown } | undefined)?.Variables ?? {}) ?? {}) as Record<string, string>;
  return { variables, lambdaName: String(resolve(properties.FunctionName)) };
}

/** The table's partition key and its indexes' (from its KeySchema), so the recorder knows what LeadingKeys are. */
export function tableKeySchema(template: Template, tableId: string) {
  const properties = template.Resources[tableId]?.Properties ?? {};
  const hashOf = (schema: unknown) => (schema as Array<{ AttributeName: string; KeyType: string }>).find((key) => key.KeyType === 'HASH')!.AttributeName;
  const indexes = (properties.GlobalSecondaryIndexes ?? []) as Array<{ IndexName: string; KeySchema: unknown }>;
  return {
    partitionKey: hashOf(properties.KeySchema),
    indexPartitionKeys: Object.fromEntries(indexes.map((index) => [index.IndexName, hashOf(index.KeySchema)])),
  };
}

/**
 * What Lambda itself does as a function's role, for the function's event source mappings: reads
 * the stream and sends failed batches' descriptions to the on-failure destination. Taken from the
 * template, as no code of ours makes these calls. Not `dynamodb:ListStreams`: IAM authorizes it
 * on `*` only (no resource type), so the stream-scoped grant Lambda's own check asks for (AWS's
 * example policy for a DynamoDB trigger, osls's default role) allows no call an evaluator could
 * make; LAMBDA_CHECKED_ONLY names it for the tests.
 */
export function eventSourceRequests(template: Template, functionName: string, resolve: (value: unknown) => unknown): Array<{ action: string; arn: string }> {
  const target = logicalIdOf(functionName);
  const requests: Array<{ action: string; arn: string }> = [];
  for (const resource of Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping')) {
    const properties = resource.Properties ?? {};
    if (JSON.stringify(properties.FunctionName) !== JSON.stringify({ 'Fn::GetAtt': [target, 'Arn'] })) continue;
    const stream = String(resolve(properties.EventSourceArn));
    for (const action of ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']) requests.push({ action, arn: stream });
    const destination = (properties.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)?.OnFailure?.Destination;
    if (destination !== undefined) requests.push({ action: String(resolve(destination)).includes(':sns:') ? 'sns:Publish' : 'sqs:SendMessage', arn: String(resolve(destination)) });
  }
  return requests;
}

/** Granted on the stream because Lambda checks for it when it creates a mapping, though IAM authorizes no call of it there (see eventSourceRequests). */
export const LAMBDA_CHECKED_ONLY = ['dynamodb:ListStreams'];
