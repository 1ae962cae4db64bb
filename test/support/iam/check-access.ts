/**
 * Recorded AWS calls against a function's role, with a real IAM policy evaluator
 * (@cloud-copilot/iam-simulate, offline): is each call allowed, is each grant used, and do the
 * item-level grants carry LeadingKeys conditions. Findings name function, action, resource and
 * the kinds of keys (`user#…`, never a key), and say what the role would need.
 */
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { keyKind, keyPrefix, type AwsRequest } from './aws-call-recorder.js';
import { ACCOUNT_ID, PARTITION, REGION, type FunctionRole, type PolicyStatement } from './template-roles.js';

const LEADING_KEYS = 'dynamodb:LeadingKeys';

/** DynamoDB actions on items by key: their grants must say which keys (dynamodb:LeadingKeys). */
export const ITEM_ACTIONS = new Set([
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchGetItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
]);

/** Services whose grants the functions' own code uses (logs are written by the Lambda runtime, KMS by SSM). */
const CHECKED_SERVICES = ['dynamodb:', 'ssm:', 'ses:', 'events:', 'sqs:', 'lambda:'];

export function resourceArn(request: AwsRequest): string {
  const { resource } = request;
  switch (resource.type) {
    case 'table': {
      const table = resource.table.startsWith('arn:') ? resource.table : `arn:${PARTITION}:dynamodb:${REGION}:${ACCOUNT_ID}:table/${resource.table}`;
      return resource.index === undefined ? table : `${table}/index/${resource.index}`;
    }
    case 'parameter':
      return `arn:${PARTITION}:ssm:${REGION}:${ACCOUNT_ID}:parameter${resource.name.startsWith('/') ? '' : '/'}${resource.name}`;
    case 'ses':
    case 'arn':
      return resource.arn;
    case 'function':
      // As Lambda resolves a name: the caller's region and account unless an ARN or partial ARN says otherwise.
      if (resource.name.startsWith('arn:')) return resource.name;
      if (/^\d{12}:function:/.test(resource.name)) return `arn:${PARTITION}:lambda:${REGION}:${resource.name}`;
      return `arn:${PARTITION}:lambda:${REGION}:${ACCOUNT_ID}:function:${resource.name}`;
    case 'unknown':
      return `<unknown resource: ${resource.detail}>`;
  }
}

/** For a message: action, resource, how many calls, the kinds of keys (never the keys themselves). */
export function describeRequests(requests: AwsRequest[]): string {
  const [first] = requests;
  if (first === undefined) return 'no calls';
  const kinds = [...new Set(requests.flatMap((request) => (request.leadingKeys ?? []).map(keyKind)))];
  const via = first.action.endsWith(`:${first.operation}`) ? '' : ` in ${first.operation}`;
  const count = `${requests.length} call${requests.length === 1 ? '' : 's'}${via}`;
  return `${first.action} on ${resourceArn(first)} (${count})${kinds.length === 0 ? '' : ` keys [${kinds.join(', ')}]`}`;
}

type Verdict = { allowed: true } | { allowed: false; problem: string };

/** Is this request allowed by these policies? Validation errors and ignored context keys are failures too. */
async function simulate(principal: string, policies: FunctionRole['policies'], request: AwsRequest): Promise<Verdict> {
  if (request.resource.type === 'unknown') return { allowed: false, problem: `cannot be evaluated (${request.resource.detail})` };
  const contextVariables: Record<string, string | string[]> = {};
  if (request.leadingKeys !== undefined) contextVariables[LEADING_KEYS] = request.leadingKeys;
  if (request.enclosingOperation !== undefined) contextVariables['dynamodb:EnclosingOperation'] = request.enclosingOperation;
  const simulation: Simulation = {
    request: { principal, action: request.action, resource: { resource: resourceArn(request), accountId: ACCOUNT_ID }, contextVariables },
    identityPolicies: policies,
    serviceControlPolicies: [],
    resourceControlPolicies: [],
  };
  const response = await runSimulation(simulation, {});
  if (response.resultType === 'error') return { allowed: false, problem: `the evaluator refused the request: ${response.errors.message}` };
  if (response.resultType !== 'single') return { allowed: false, problem: `unexpected ${response.resultType} result` };
  // A key the evaluator drops would make a ForAllValues condition pass vacuously.
  const ignored = response.result.ignoredContextKeys ?? [];
  if (ignored.length > 0) return { allowed: false, problem: `the evaluator ignored context keys ${ignored.join(', ')}` };
  return response.overallResult === 'Allowed' ? { allowed: true } : { allowed: false, problem: response.overallResult };
}

const asArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const statementsOf = (role: FunctionRole) => role.policies.flatMap((policy) => policy.policy.Statement);
const single = (statement: PolicyStatement) => [{ name: 'one-statement', policy: { Version: '2012-10-17', Statement: [statement] } }];
const leadingKeyPatterns = (statement: PolicyStatement) =>
  Object.entries(statement.Condition ?? {}).flatMap(([, keys]) => asArray(keys[LEADING_KEYS]));

export interface Finding {
  functionName: string;
  message: string;
  /** The denied requests, for deniedRequests. */
  requests?: AwsRequest[];
}

/**
 * Every recorded request its role would deny, grouped by action, resource and reason: whether
 * the role has no statement for the action on the resource, or one whose conditions refuse.
 */
export async function deniedRequests(role: FunctionRole, requests: AwsRequest[]): Promise<Finding[]> {
  const groups = new Map<string, { why: string; requests: AwsRequest[] }>();
  for (const request of dedupe(requests)) {
    const verdict = await simulate(role.principal, role.policies, request);
    if (verdict.allowed) continue;
    // Which Allow statements name this action on this resource, conditions aside?
    const mentioning: PolicyStatement[] = [];
    for (const statement of statementsOf(role).filter((s) => s.Effect === 'Allow')) {
      const { Condition: _condition, ...unconditional } = statement;
      if ((await simulate(role.principal, single(unconditional), request)).allowed) mentioning.push(statement);
    }
    const why =
      mentioning.length === 0
        ? `${role.roleId} has no statement for this action on this resource (${verdict.problem})`
        : `denied by the conditions of ${role.roleId}'s statement for it (LeadingKeys allowed: ${mentioning.flatMap(leadingKeyPatterns).join(', ') || 'none'}; ${verdict.problem})`;
    const id = JSON.stringify([request.action, resourceArn(request), request.operation, why]);
    const group = groups.get(id) ?? { why, requests: [] };
    group.requests.push(request);
    groups.set(id, group);
  }
  return [...groups.values()].map(({ why, requests: denied }) => ({
    functionName: role.functionName,
    message: `${role.functionName}: ${describeRequests(denied)}: ${why}`,
    requests: denied,
  }));
}

/**
 * Grants no recorded request uses: for each Allow statement on DynamoDB, SSM or SES, each action,
 * resource and LeadingKeys pattern must allow at least one request on its own.
 */
export async function unusedGrants(role: FunctionRole, requests: AwsRequest[]): Promise<Finding[]> {
  // One request per single key, so a batch touching two kinds of item uses both patterns.
  const singles = dedupe(requests.flatMap((request) => (request.leadingKeys ?? [undefined]).map((key) => ({ ...request, ...(key !== undefined && { leadingKeys: [key] }) }))));
  const findings: Finding[] = [];
  for (const statement of statementsOf(role).filter((s) => s.Effect === 'Allow')) {
    for (const action of asArray(statement.Action).filter((a) => CHECKED_SERVICES.some((service) => a.startsWith(service)))) {
      for (const resource of asArray(statement.Resource)) {
        const patterns = leadingKeyPatterns(statement);
        for (const pattern of patterns.length === 0 ? [undefined] : patterns) {
          const narrowed: PolicyStatement = { ...statement, Action: action, Resource: resource };
          if (pattern !== undefined) narrowed.Condition = narrowCondition(statement.Condition!, pattern);
          let used = false;
          for (const request of singles.filter((r) => r.action === action)) {
            if ((used = (await simulate(role.principal, single(narrowed), request)).allowed)) break;
          }
          if (!used) {
            const keys = pattern === undefined ? '' : ` on keys ${pattern}`;
            findings.push({ functionName: role.functionName, message: `${role.functionName}: ${role.roleId} grants ${action} on ${resource}${keys}, which no recorded call used` });
          }
        }
      }
    }
  }
  return findings;
}

function narrowCondition(condition: NonNullable<PolicyStatement['Condition']>, pattern: string): PolicyStatement['Condition'] {
  return Object.fromEntries(
    Object.entries(condition).map(([operator, keys]) => [operator, LEADING_KEYS in keys ? { ...keys, [LEADING_KEYS]: [pattern] } : keys]),
  );
}

/** Item-level DynamoDB grants without a ForAllValues LeadingKeys condition (any key, or any-of). */
export function unconditionedItemGrants(role: FunctionRole): Finding[] {
  return statementsOf(role)
    .filter((statement) => statement.Effect === 'Allow' && asArray(statement.Action).some((action) => ITEM_ACTIONS.has(action) || action.includes('*')))
    .filter((statement) => {
      const operators = Object.entries(statement.Condition ?? {}).filter(([, keys]) => LEADING_KEYS in keys).map(([operator]) => operator);
      return operators.length === 0 || operators.some((operator) => !operator.startsWith('ForAllValues:'));
    })
    .map((statement) => ({
      functionName: role.functionName,
      message: `${role.functionName}: ${role.roleId} grants ${asArray(statement.Action).join(', ')} on ${asArray(statement.Resource).join(', ')} without a ForAllValues condition on ${LEADING_KEYS}: every key of the table`,
    }));
}

/**
 * Statements that would allow the denied requests, in infra/iam-roles.yml's terms, for the
 * message to whoever changes the role (or the code: a call may be the thing to remove).
 * `tables` maps physical table names to their logical ids.
 */
export function suggestedStatements(role: FunctionRole, denied: AwsRequest[], tables: Record<string, string>): string {
  const grants = new Map<string, Set<string>>();
  for (const request of denied) {
    const { resource } = request;
    const resourceText =
      resource.type === 'table' && tables[resource.table] !== undefined
        ? resource.index === undefined
          ? `!GetAtt ${tables[resource.table]}.Arn`
          : `!Sub '\${${tables[resource.table]}.Arn}/index/${resource.index}'`
        : resource.type === 'parameter'
          ? `!Sub 'arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${resource.name.startsWith('/') ? '' : '/'}${resource.name}'`
          : resourceArn(request);
    const id = `${request.action}|${resourceText}`;
    const prefixes = grants.get(id) ?? new Set<string>();
    for (const key of request.leadingKeys ?? []) prefixes.add(`'${keyPrefix(key)}*'`);
    grants.set(id, prefixes);
  }
  return [...grants]
    .map(([id, prefixes]) => {
      const [action, resource] = id.split('|');
      const condition = prefixes.size === 0 ? '' : `, Condition: { ForAllValues:StringLike: { dynamodb:LeadingKeys: [${[...prefixes].sort().join(', ')}] } }`;
      return `  - { Effect: Allow, Action: ${action}, Resource: ${resource}${condition} }`;
    })
    .join('\n');
}

/** Identical requests (same action, resource and keys) are evaluated once. */
function dedupe(requests: AwsRequest[]): AwsRequest[] {
  const seen = new Map<string, AwsRequest>();
  for (const request of requests) seen.set(JSON.stringify([request.action, request.resource, request.leadingKeys, request.enclosingOperation]), request);
  return [...seen.values()];
}

/**
 * A function's calls as "<action> <what>" lines, sorted: the key kind (`user#`), the index
 * (`index/userId-index`), or the environment variable that names the parameter, SES identity or
 * configuration set (`variables`: value -> variable). Compared with FUNCTION_ACCESS.
 */
export function summarize(requests: AwsRequest[], variables: Record<string, string>): string[] {
  const lines = requests.flatMap((request) => {
    const { resource } = request;
    if (resource.type === 'parameter') return [`${request.action} ${variables[resource.name] ?? `<unnamed parameter ${resource.name}>`}`];
    if (resource.type === 'ses') return [`${request.action} ${variables[resource.name] ?? `<unnamed ${resource.kind} ${resource.name}>`}`];
    if (resource.type === 'arn') return [`${request.action} ${(resource.name !== undefined && variables[resource.name]) || resource.arn}`];
    if (resource.type === 'table' && resource.index !== undefined) return [`${request.action} index/${resource.index}`];
    if (request.leadingKeys === undefined) return [request.action];
    return request.leadingKeys.map((key) => `${request.action} ${keyPrefix(key)}`);
  });
  return [...new Set(lines)].sort();
}
