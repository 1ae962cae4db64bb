/**
 * passlane on AWS with the CDK: the whole service (table, functions with one role each, HTTP API
 * with throttling and both authorizers, log groups) in one stack. From the repository root:
 *
 *   npm run package -- --zips-only            # the arm64 zips, .package/arm64/ (no AWS needed)
 *   cd examples/cdk && npx cdk deploy         # cdk.json runs this file with tsx
 *
 * Context (`-c name=value`): arch (arm64 or x86_64, packaged with `-- --arch x86_64`), stage (the
 * SSM parameters' /passlane/<stage>/ prefix, as serverless.yml's --stage), mailFrom, appUrl,
 * sesIdentityArn, sesConfigurationSet, jwtIssuer, corsOrigins (comma-separated origins of browser
 * apps, packages/server/src/api/README.md "CORS"), eventBus (the EventBridge bus account events go
to, infra/README.md "Account events"). The parameters themselves are created once per
 * stage as infra/README.md shows ("Secrets").
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
// In your own project: import { PasslaneAuth } from '@passlane/server/cdk';
import { PasslaneAuth, type PasslaneArchitecture, type PasslaneAuthProps } from '../../packages/server/src/cdk/index.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export class PasslaneStack extends Stack {
  readonly auth: PasslaneAuth;

  constructor(scope: Construct, id: string, props: StackProps & { passlane?: PasslaneAuthProps } = {}) {
    super(scope, id, props);
    this.auth = new PasslaneAuth(this, 'Auth', props.passlane);
    // What other stacks and apps need: where to call, whose tokens to accept, which table.
    new CfnOutput(this, 'ApiUrl', { value: this.auth.apiUrl });
    new CfnOutput(this, 'JwtIssuer', { value: this.auth.issuer, description: "The tokens' iss; a JWT authorizer's issuer" });
    new CfnOutput(this, 'JwtAudience', { value: this.auth.audience });
    new CfnOutput(this, 'JwksUrl', { value: this.auth.jwksUrl });
    new CfnOutput(this, 'UsersTableName', { value: this.auth.table.tableName });
    new CfnOutput(this, 'AuthorizerFunctionArn', { value: this.auth.authorizerFunction.functionArn });
    // For `passlane bench --remote <name>` (packages/server/src/cli/bench/README.md) and for invoking the rehash job.
    new CfnOutput(this, 'BenchFunctionName', { value: this.auth.functions.bench!.functionName });
    new CfnOutput(this, 'RehashFunctionName', { value: this.auth.functions.rehash!.functionName });
    // Where the events function describes batches it gave up on (infra/README.md, "Account events": redrive).
    new CfnOutput(this, 'EventsDeadLetterQueueUrl', { value: this.auth.deadLetterQueues.events!.queueUrl });
  }
}

/** The stack `npx cdk deploy` deploys, configured from the app's context. */
export function passlaneApp(app: App): PasslaneStack {
  const context = (name: string): string | undefined => app.node.tryGetContext(name) as string | undefined;
  const architecture = (context('arch') ?? process.env.PASSLANE_ARCH ?? 'arm64') as PasslaneArchitecture;
  const stage = context('stage') ?? 'dev';
  const mailFrom = context('mailFrom');
  const appUrl = context('appUrl');
  const sesIdentityArn = context('sesIdentityArn');
  const configurationSet = context('sesConfigurationSet');
  const corsOrigins = context('corsOrigins');
  const eventBus = context('eventBus');
  return new PasslaneStack(app, `passlane-${stage}`, {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    passlane: {
      architecture,
      stage,
      bundleDirectory: context('bundles') ?? join(repoRoot, '.package', architecture),
      ...(context('jwtIssuer') !== undefined && { jwt: { issuer: context('jwtIssuer') } }),
      ...(corsOrigins !== undefined && { corsOrigins: corsOrigins.split(',').map((origin) => origin.trim()) }),
      ...(eventBus !== undefined && { events: { busName: eventBus } }),
      ...(mailFrom !== undefined &&
        appUrl !== undefined && { mail: { from: mailFrom, appUrl, ...(sesIdentityArn !== undefined && { sesIdentityArn }), ...(configurationSet !== undefined && { configurationSet }) } }),
    },
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const app = new App();
  passlaneApp(app);
  app.synth();
}
