/**
 * Both templates (Serverless and CDK, with defaults and with every option set) against the
 * CloudFormation resource provider schemas: an unknown property, a wrong type, a missing required
 * property or a bad value fails here instead of at deploy time.
 *
 * The schemas and the validator are AWS's offline CloudFormation validator
 * (`@aws/cloudformation-validate`, Apache-2.0: the registry's provider schemas compiled into
 * WASM), which aws-cdk-lib bundles for its own synth-time validation (CloudFormationValidatePlugin).
 * Its SchemaValidator runs the schema rules alone: a couple of seconds to load, a fraction of a
 * second per template, no network. Unknown resource types are skipped by it silently, so a probe
 * checks that every type these templates use has a schema.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageServerless, placeholderBundles, synthConstruct, synthExampleApp, writeTemplate, type CfnTemplate } from './support/deploy-templates.js';

interface Diagnostic {
  ruleId: string;
  severity: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';
  message: string;
  entity?: { logicalId?: string };
  propertyPath?: string;
}
interface Validator {
  validate(template: unknown, region?: string): Diagnostic[];
  schemaCount(): number;
  free(): void;
}
interface ValidateModule {
  SchemaValidator: new () => Validator;
  TemplateFile: new (path: string) => unknown;
  version(): string;
}

/** aws-cdk-lib ships it as a bundled dependency: resolved from there, not from the project's node_modules. */
function loadValidator(): ValidateModule {
  const fromCdk = createRequire(createRequire(import.meta.url).resolve('aws-cdk-lib'));
  return fromCdk('@aws/cloudformation-validate') as ValidateModule;
}

const CONFIGURED_PARAMS = {
  mailFrom: 'Passlane <no-reply@mail.example.test>',
  appUrl: 'https://app.example.test',
  sesConfigurationSet: 'passlane-events',
  secretsKmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/0b1c2d3e-1111-2222-3333-444455556666',
  migrationUrl: 'https://legacy.example.test/verify',
  migrationSecretParameter: '/passlane/dev/migration-secret',
  loginLimitPerIp: '20',
  throttleRatePerSecond: '20',
};

let workDir: string;
let cfn: ValidateModule;
let validator: Validator;
const files: Record<string, string> = {};
const templates: Record<string, CfnTemplate> = {};
/**
 * Schema violations are FATAL; a value outside its enum is a warning (W3030), and counts too.
 * The one warning that does not: a number given as a string (W9003), which CloudFormation
 * converts itself, and which osls writes for a --param (`--param=throttleRatePerSecond=20`).
 */
const isFailure = (d: Diagnostic) => d.severity === 'FATAL' || d.severity === 'ERROR' || (d.severity === 'WARN' && d.ruleId !== 'W9003');
const describeDiagnostic = (d: Diagnostic) => `${d.ruleId} ${d.entity?.logicalId ?? ''} ${d.propertyPath ?? ''}: ${d.message}`;
const validate = (file: string) => validator.validate(new cfn.TemplateFile(file), 'eu-west-1');

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'passlane-spec-'));
  const loading = performance.now();
  cfn = loadValidator();
  validator = new cfn.SchemaValidator();
  console.log(`@aws/cloudformation-validate ${cfn.version()}: ${validator.schemaCount()} resource schemas in ${Math.round(performance.now() - loading)} ms`);
  const bundles = placeholderBundles(join(workDir, 'bundles'));
  const [serverless, serverlessConfigured] = await Promise.all([
    packageServerless(mkdtempSync(join(workDir, 'sls-'))),
    packageServerless(mkdtempSync(join(workDir, 'sls-')), { params: CONFIGURED_PARAMS }),
  ]);
  Object.assign(templates, {
    serverless,
    'serverless, every option': serverlessConfigured,
    cdk: synthExampleApp(join(workDir, 'cdk.out'), { bundles }).template,
    'cdk, every option': synthConstruct(join(workDir, 'cdk-configured.out'), {
      bundleDirectory: bundles,
      mail: { from: CONFIGURED_PARAMS.mailFrom, appUrl: CONFIGURED_PARAMS.appUrl, configurationSet: 'passlane-events' },
      secrets: { kmsKeyArn: CONFIGURED_PARAMS.secretsKmsKeyArn },
      migration: { url: 'https://legacy.example.test/verify', secretParameterName: '/passlane/dev/migration-secret' },
      rateLimits: { perSource: 20 },
      throttling: { rateLimit: 20 },
    }).template,
  });
  for (const [name, template] of Object.entries(templates)) files[name] = writeTemplate(join(workDir, `${name.replace(/\W+/g, '-')}.json`), template);
}, 180_000);

afterAll(() => {
  validator?.free();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('the templates against the CloudFormation resource schemas', () => {
  it.each(['serverless', 'serverless, every option', 'cdk', 'cdk, every option'])('%s: no schema violation', (name) => {
    const diagnostics = validate(files[name]!);
    expect(diagnostics.filter(isFailure).map(describeDiagnostic)).toEqual([]);
  });

  it('knows every resource type the templates use (an unknown property on each is reported)', () => {
    const types = [...new Set(Object.values(templates).flatMap((template) => Object.values(template.Resources).map((resource) => resource.Type)))].sort();
    expect(types).toEqual(expect.arrayContaining(['AWS::DynamoDB::Table', 'AWS::IAM::Role', 'AWS::Lambda::Function', 'AWS::ApiGatewayV2::Stage']));
    const probe = { Resources: Object.fromEntries(types.map((type, index) => [`Probe${index}`, { Type: type, Properties: { PasslaneProbe: 1 } }])) };
    const reported = validate(writeTemplate(join(workDir, 'probe.json'), probe)).filter((d) => d.ruleId === 'F3002' && d.propertyPath === 'Properties.PasslaneProbe');
    const known = new Set(reported.map((d) => d.entity?.logicalId));
    expect(types.filter((_, index) => !known.has(`Probe${index}`))).toEqual([]);
  });
});

describe('the check itself fails on what it is there to catch', () => {
  const broken = (name: string, change: (template: CfnTemplate) => void) => {
    const copy = structuredClone(templates[name]!);
    change(copy);
    return validate(writeTemplate(join(workDir, `broken-${Math.random().toString(36).slice(2)}.json`), copy)).filter(isFailure);
  };

  it('an unknown property on the Serverless table', () => {
    const findings = broken('serverless', (t) => (t.Resources.UsersTable!.Properties!.TimeToLive = { AttributeName: 'expiresAt', Enabled: true }));
    expect(findings.map(describeDiagnostic)).toEqual([expect.stringMatching(/^F3002 UsersTable Properties\.TimeToLive: .*'TimeToLive' was unexpected/)]);
  });

  it('a wrong type in a CDK function, and an unknown key deep in a role', () => {
    const cdk = templates.cdk!;
    const functionId = Object.keys(cdk.Resources).find((id) => cdk.Resources[id]!.Type === 'AWS::Lambda::Function')!;
    const roleId = Object.keys(cdk.Resources).find((id) => cdk.Resources[id]!.Type === 'AWS::IAM::Role')!;
    const findings = broken('cdk', (t) => {
      t.Resources[functionId]!.Properties!.MemorySize = 'a lot';
      (t.Resources[roleId]!.Properties!.Policies as Array<Record<string, unknown>>)[0]!.Statements = [];
    });
    expect(findings.map(describeDiagnostic).sort()).toEqual([
      expect.stringMatching(new RegExp(`^F3002 ${roleId} Properties\\.Policies\\.0\\.Statements: `)),
      expect.stringMatching(new RegExp(`^F3012 ${functionId} Properties\\.MemorySize: 'a lot' is not of type 'integer'`)),
    ]);
  });

  it('a missing required property and a value out of its enum', () => {
    const findings = broken('serverless', (t) => {
      delete t.Resources.HttpApiStage!.Properties!.ApiId;
      t.Resources.UsersTable!.Properties!.BillingMode = 'ON_DEMAND';
    });
    expect(findings.map((d) => `${d.ruleId} ${d.entity?.logicalId} ${d.propertyPath}`).sort()).toEqual([
      'F3003 HttpApiStage Properties',
      // Not on demand any more, so provisioned: its ProvisionedThroughput is then required.
      'F3003 UsersTable Properties',
      'W3030 UsersTable Properties.BillingMode',
    ]);
  });
});
