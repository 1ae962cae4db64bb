/**
 * Both deployment templates, made offline, for the tests that compare and check them:
 *   - the Serverless one, as `serverless package` (osls) writes it, from a temporary copy of
 *     serverless.yml and infra/ (optionally with generated files replaced) and placeholder zips;
 *   - the CDK one, from the example app (examples/cdk/app.ts) synthesized in-process as
 *     `cdk synth` does (app.synth(), cdk.json's context), or from PasslaneAuth with another
 *     description, over placeholder zips.
 * `serverlessShaped` renames the CDK template's logical ids to the ones osls uses (UsersTable,
 * LoginLambdaFunction, LoginRole, LoginLogGroup, HttpApi, ...), so both go through the same
 * resolver (test/support/iam/template-roles.ts) and compare resource by resource.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { zipSync } from 'fflate';
import { passlaneApp, type PasslaneStack } from '../../examples/cdk/app.js';
import type { LambdaArchitecture } from '../../scripts/packaging/architectures.js';
import { BUNDLE_FILE } from '../../scripts/packaging/lambda-functions.js';
import { capitalized, PASSLANE_FUNCTIONS, streamAlarms, type FunctionDescription } from '../../packages/server/src/cdk/functions.js';
import { PasslaneAuth, type PasslaneAuthProps } from '../../packages/server/src/cdk/passlane-auth.js';
import { repoRoot } from './packaging.js';

const execFileAsync = promisify(execFile);

export interface CfnTemplate {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string; UpdateReplacePolicy?: string; DependsOn?: unknown }>;
  Conditions?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
  Parameters?: Record<string, unknown>;
}

/** `<dir>/<name>.zip` for every function and the manifest package-functions.ts writes: what PasslaneAuth takes, in milliseconds. */
export function placeholderBundles(dir: string, arch: LambdaArchitecture = 'arm64', functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): string {
  mkdirSync(dir, { recursive: true });
  for (const fn of functions) {
    writeFileSync(join(dir, `${fn.name}.zip`), zipSync({ [BUNDLE_FILE]: new TextEncoder().encode(`export const handler = () => '${fn.name}';\n`) }, { mtime: new Date('2020-01-01') }));
  }
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify({ arch, functions: [] })}\n`);
  return dir;
}

/**
 * The Serverless template for `params` (`--param=name=value`), packaged in `workDir`. `files`
 * replaces files of the copy (paths from the repository root), e.g. regenerated infra files.
 */
export async function packageServerless(workDir: string, options: { params?: Record<string, string>; env?: Record<string, string>; files?: Record<string, string> } = {}): Promise<CfnTemplate> {
  cpSync(join(repoRoot, 'serverless.yml'), join(workDir, 'serverless.yml'));
  cpSync(join(repoRoot, 'infra'), join(workDir, 'infra'), { recursive: true });
  for (const [path, content] of Object.entries(options.files ?? {})) writeFileSync(join(workDir, path), content);
  placeholderBundles(join(workDir, '.package', 'arm64'));
  const serverless = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
  const params = Object.entries(options.params ?? {}).map(([name, value]) => `--param=${name}=${value}`);
  // Only what `options.env` says: serverless.yml would otherwise take the public keys from this process.
  const { PASSLANE_JWT_PUBLIC_KEYS: _inherited, ...inherited } = process.env;
  await execFileAsync(process.execPath, [serverless, 'package', '--param=arch=arm64', '--package', join(workDir, 'out'), ...params], {
    cwd: workDir,
    env: { ...inherited, ...options.env, PASSLANE_ARCH: 'arm64', SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(readFileSync(join(workDir, 'out', 'cloudformation-template-update-stack.json'), 'utf8')) as CfnTemplate;
}

/** cdk.json's context, as the CDK CLI passes it to the app. */
export const EXAMPLE_CONTEXT = (JSON.parse(readFileSync(join(repoRoot, 'examples/cdk/cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;

/**
 * The example app, synthesized as `cdk synth` does: cdk.json's context plus `context`, a cloud
 * assembly in `outdir` (assets staged there), the stack's template read back from it. The CDK's
 * built-in template validation is off here (about 10 s per synth on two busy cores): the schema
 * check of test/cloudformation-spec.test.ts covers that.
 */
export function synthExampleApp(outdir: string, context: Record<string, string>): { stack: PasslaneStack; template: CfnTemplate; assemblyDir: string } {
  const app = new App({ outdir, context: { ...EXAMPLE_CONTEXT, ...context }, builtinCloudFormationValidation: false });
  const stack = passlaneApp(app);
  const assembly = app.synth();
  return { stack, template: assembly.getStackByName(stack.stackName).template as CfnTemplate, assemblyDir: assembly.directory };
}

/** PasslaneAuth alone in a stack, with `functions` as its description (tests of the description itself). */
export function synthConstruct(outdir: string, props: PasslaneAuthProps, functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): { stack: Stack; auth: PasslaneAuth; template: CfnTemplate } {
  const app = new App({ outdir, builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'passlane-test');
  const auth = new PasslaneAuth(stack, 'Auth', props, functions);
  const assembly = app.synth();
  return { stack, auth, template: assembly.getStackByName(stack.stackName).template as CfnTemplate };
}

const logicalIdOf = (stack: Stack, construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** The osls logical id of each resource PasslaneAuth creates that serverless.yml has too. */
export function serverlessLogicalIds(stack: Stack, auth: PasslaneAuth, functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): Record<string, string> {
  const ids: Record<string, string> = {
    [logicalIdOf(stack, auth.table)]: 'UsersTable',
    [logicalIdOf(stack, auth.api)]: 'HttpApi',
    [logicalIdOf(stack, auth.stage)]: 'HttpApiStage',
    [logicalIdOf(stack, auth.accessLogs)]: 'HttpApiLogGroup',
    [logicalIdOf(stack, auth.node.findChild('JwtAuthorizer'))]: 'HttpApiAuthorizerPasslaneJwt',
    [logicalIdOf(stack, auth.node.findChild('SessionAuthorizer'))]: 'HttpApiAuthorizerPasslaneSession',
  };
  for (const fn of functions) {
    const id = capitalized(fn.name);
    const lambda = auth.functions[fn.name]!;
    ids[logicalIdOf(stack, lambda)] = `${id}LambdaFunction`;
    ids[logicalIdOf(stack, lambda.role!)] = `${id}Role`;
    ids[logicalIdOf(stack, auth.node.findChild(`${id}Logs`))] = `${id}LogGroup`;
    if (fn.tableStream === undefined) continue;
    // The stream trigger's resources: the event source mapping as osls names it, the queue and alarms as infra/stream-triggers.yml does.
    ids[logicalIdOf(stack, auth.deadLetterQueues[fn.name]!)] = `${id}DeadLetterQueue`;
    ids[stack.getLogicalId(auth.node.findChild(`${id}StreamTrigger`) as CfnElement)] = `${id}EventSourceMappingDynamodbUsersTable`;
    for (const alarm of streamAlarms(fn)) ids[stack.getLogicalId(auth.node.findChild(`${id}${alarm.suffix}`) as CfnElement)] = `${id}${alarm.suffix}`;
  }
  return ids;
}

/** The template with those resources under their osls ids, every reference to them included. */
export function serverlessShaped(template: CfnTemplate, ids: Record<string, string>): CfnTemplate {
  let text = JSON.stringify(template);
  for (const [from, to] of Object.entries(ids)) {
    text = text.replaceAll(`"${from}"`, `"${to}"`).replaceAll(`\${${from}}`, `\${${to}}`).replaceAll(`\${${from}.`, `\${${to}.`);
  }
  return JSON.parse(text) as CfnTemplate;
}

/** What CloudFormation would name the CDK's log groups (it generates them): for the resolver's ARNs. */
export function logGroupNames(functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): Record<string, string> {
  return { ...Object.fromEntries(functions.map((fn) => [`${capitalized(fn.name)}LogGroup`, `passlane-test-${capitalized(fn.name)}Logs-GENERATED`])), ...queueNames(functions) };
}

/** What CloudFormation would name the dead-letter queues (both templates leave it to it). */
export function queueNames(functions: readonly FunctionDescription[] = PASSLANE_FUNCTIONS): Record<string, string> {
  return Object.fromEntries(functions.filter((fn) => fn.tableStream !== undefined).map((fn) => [`${capitalized(fn.name)}DeadLetterQueue`, `passlane-test-${capitalized(fn.name)}DeadLetterQueue-GENERATED`]));
}

/** Writes a template to `file` (for validators that read files). */
export function writeTemplate(file: string, template: unknown): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(template, null, 1));
  return file;
}
