/**
 * `@passlane/server/cdk`: the service as an AWS CDK construct. Needs `aws-cdk-lib` (v2) and `constructs`
 * beside it (optional peer dependencies: nothing else in the package loads them).
 */
export {
  PasslaneAuth,
  bundleZips,
  type PasslaneArchitecture,
  type PasslaneAuthProps,
  type PasslaneJwtProps,
  type PasslaneMailProps,
  type PasslaneMigration,
  type PasslaneHook,
  type PasslaneMfa,
  type PasslanePasskeys,
  type PasslaneOAuth,
  type PasslaneRateLimits,
  type PasslaneSecretsProps,
} from './passlane-auth.js';
export { PASSLANE_FUNCTIONS, type FunctionDescription, type Grant, type EnvSource } from './functions.js';
