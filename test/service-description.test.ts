/**
 * One description (packages/server/src/cdk/functions.ts), two deployments: serverless.yml's generated files are
 * what the description generates, the packaging bundles exactly the described functions, and a
 * permission changed in the description reaches both templates, the Serverless one through the
 * regenerated infra files and the CDK one through the construct.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_FUNCTIONS } from '../scripts/packaging/lambda-functions.js';
import { renderEnvironmentSection, renderFunctionsSection, renderServerlessInfra, withGeneratedSections } from '../scripts/packaging/serverless-infra.js';
import { PASSLANE_FUNCTIONS, type FunctionDescription } from '../packages/server/src/cdk/functions.js';
import { createResolver, functionEnvironment, functionRoles, type Template as ResolvableTemplate } from './support/iam/template-roles.js';
import { logGroupNames, packageServerless, placeholderBundles, serverlessLogicalIds, serverlessShaped, synthConstruct, type CfnTemplate } from './support/deploy-templates.js';
import { repoRoot } from './support/packaging.js';
import { OPERATOR_ROUTES } from '../packages/server/src/features/operators/operator-routes.js';

/** serverless.yml names its table (passlane-<stage>-users); the CDK's generated name stands in as the same. */
const PHYSICAL_IDS = { UsersTable: 'passlane-dev-users', HttpApi: 'described01', ...logGroupNames() };

/**
 * The description with one change of each kind a developer makes: sessions may also delete its
 * sessions item (a new grant), token reads the fingerprint key (a new secret: grant and variable
 * together), jwks gets a variable of its own and more memory.
 */
const CHANGED: readonly FunctionDescription[] = PASSLANE_FUNCTIONS.map((fn) => {
  switch (fn.name) {
    case 'sessions':
      return { ...fn, grants: [...fn.grants, { kind: 'items', action: 'dynamodb:DeleteItem', keys: ['sessions#*'], why: 'A test change.' }] };
    case 'token':
      return {
        ...fn,
        environment: { ...fn.environment, PASSLANE_FINGERPRINT_KEY_PARAMETER: { kind: 'parameterName', secret: 'fingerprintKey' } },
        grants: [...fn.grants, { kind: 'parameters', secrets: ['fingerprintKey'], why: 'A test change.' }],
      };
    case 'jwks':
      return { ...fn, memory: 512, environment: { ...fn.environment, PASSLANE_EXAMPLE: { kind: 'literal', value: 'changed' } } };
    default:
      return fn;
  }
});

const SESSIONS_DELETE = {
  Effect: 'Allow',
  Action: 'dynamodb:DeleteItem',
  Resource: `arn:aws:dynamodb:eu-west-1:123456789012:table/${PHYSICAL_IDS.UsersTable}`,
  Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['sessions#*'] } },
};
const TOKEN_FINGERPRINT = { Effect: 'Allow', Action: 'ssm:GetParameter', Resource: 'arn:aws:ssm:eu-west-1:123456789012:parameter/passlane/dev/fingerprint-key' };

let workDir: string;
const changed = {} as Record<'serverless' | 'cdk', CfnTemplate>;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'passlane-description-'));
  const bundles = placeholderBundles(join(workDir, 'bundles'));
  // The Serverless route takes the change through regenerated files, as `npm run generate:infra` writes them.
  changed.serverless = await packageServerless(mkdtempSync(join(workDir, 'sls-')), { files: renderServerlessInfra(CHANGED) });
  const cdk = synthConstruct(join(workDir, 'cdk.out'), { bundleDirectory: bundles }, CHANGED);
  changed.cdk = serverlessShaped(cdk.template, serverlessLogicalIds(cdk.stack, cdk.auth, CHANGED));
}, 120_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

const statementsOf = (template: CfnTemplate, name: string) => {
  const role = functionRoles(template as ResolvableTemplate, createResolver(template as ResolvableTemplate, PHYSICAL_IDS)).find((r) => r.functionName === name)!;
  return role.policies.flatMap((policy) => policy.policy.Statement);
};
const environmentOf = (template: CfnTemplate, name: string) => functionEnvironment(template as ResolvableTemplate, name, createResolver(template as ResolvableTemplate, PHYSICAL_IDS)).variables;

describe('serverless.yml takes its functions and roles from the description', () => {
  it.each(Object.keys(renderServerlessInfra()))('%s is what the description generates (else: npm run generate:infra)', (path) => {
    expect(readFileSync(join(repoRoot, path), 'utf8')).toBe(renderServerlessInfra()[path]);
  });

  it('serverless.yml holds the generated functions and environment, and its resources the generated roles', () => {
    const serverlessYml = readFileSync(join(repoRoot, 'serverless.yml'), 'utf8');
    expect(serverlessYml).toContain(`\n${renderFunctionsSection()}# end of generated: functions\n`);
    expect(serverlessYml).toContain(`\n${renderEnvironmentSection()}  # end of generated: environment\n`);
    expect(serverlessYml).toMatch(/^ {2}- \$\{file\(infra\/iam-roles\.yml\)\}$/m);
    // Without its markers a section cannot be regenerated: that fails loudly, not silently.
    expect(() => withGeneratedSections(serverlessYml.replace('# end of generated: functions', ''))).toThrow(/generated section "functions"/);
  });

  it('the packaging bundles exactly the described functions, each from its entry in functions/', () => {
    expect(LAMBDA_FUNCTIONS).toEqual(PASSLANE_FUNCTIONS.map(({ name, entry }) => ({ name, entry })));
    const entries = readdirSync(join(repoRoot, 'functions')).filter((file) => file.endsWith('.ts'));
    expect(PASSLANE_FUNCTIONS.map((fn) => fn.entry).sort()).toEqual(entries.map((file) => `functions/${file}`).sort());
  });

  it('serves the operator API from the admin function alone, behind AWS_IAM: exactly OPERATOR_ROUTES, and no other function has an /admin route', () => {
    const served = (fn: FunctionDescription) => fn.routes.filter((route) => route.split(' ')[1]!.startsWith('/admin'));
    expect(PASSLANE_FUNCTIONS.filter((fn) => served(fn).length > 0).map((fn) => fn.name)).toEqual(['admin']);
    expect(PASSLANE_FUNCTIONS.filter((fn) => fn.routeAuthorization === 'iam').map((fn) => fn.name)).toEqual(['admin']);
    const admin = PASSLANE_FUNCTIONS.find((fn) => fn.name === 'admin')!;
    expect([...admin.routes].sort()).toEqual(OPERATOR_ROUTES.map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`).sort());
  });

  it('refuses an optional secret sharing a grant with others (its statement could not be conditional alone)', () => {
    const mixed = PASSLANE_FUNCTIONS.map((fn) => (fn.name === 'login' ? { ...fn, grants: [{ kind: 'parameters', secrets: ['pepperKeys', 'migrationSecret'], why: 'x' } as const] } : fn));
    expect(() => renderServerlessInfra(mixed)).toThrow(/needs a grant of its own/);
  });
});

describe('a change in the description shows up in both templates', () => {
  it('a new grant: sessions may delete its sessions item, in the Serverless and the CDK role alike', () => {
    for (const template of [changed.serverless, changed.cdk]) expect(statementsOf(template, 'sessions')).toContainEqual(SESSIONS_DELETE);
    expect(statementsOf(changed.cdk, 'sessions')).toEqual(statementsOf(changed.serverless, 'sessions'));
  });

  it('a new secret: token reads the fingerprint key (statement and variable) in both', () => {
    for (const template of [changed.serverless, changed.cdk]) {
      expect(statementsOf(template, 'token')).toContainEqual(TOKEN_FINGERPRINT);
      expect(environmentOf(template, 'token').PASSLANE_FINGERPRINT_KEY_PARAMETER).toBe('/passlane/dev/fingerprint-key');
    }
    expect(statementsOf(changed.cdk, 'token')).toEqual(statementsOf(changed.serverless, 'token'));
  });

  it('memory and environment: jwks in both', () => {
    for (const template of [changed.serverless, changed.cdk]) {
      expect(template.Resources.JwksLambdaFunction?.Properties?.MemorySize).toBe(512);
      expect(environmentOf(template, 'jwks').PASSLANE_EXAMPLE).toBe('changed');
    }
  });

  it('and only where it was made: the committed infra files have none of it', () => {
    const committed = readFileSync(join(repoRoot, 'infra/iam-roles.yml'), 'utf8');
    // SessionsRole up to the next role, whichever follows it.
    const from = committed.indexOf('SessionsRole:');
    const sessionsRole = committed.slice(from, from + 1 + committed.slice(from + 1).search(/^ {2}\w+Role:$/m));
    expect(sessionsRole).not.toContain('dynamodb:DeleteItem');
    expect(renderServerlessInfra(CHANGED)['infra/iam-roles.yml']).not.toBe(committed);
  });
});
