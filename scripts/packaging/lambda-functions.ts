/**
 * Every Lambda function: its key in serverless.yml (also the zip's name) and its entry file, taken
 * from the one description of the functions (packages/server/src/cdk/functions.ts), which serverless.yml's
 * generated files and the CDK construct read too. The packaging test checks the list against
 * functions/*.ts.
 */
import { PASSLANE_FUNCTIONS } from '../../packages/server/src/cdk/functions.js';

export interface LambdaFunction {
  name: string;
  entry: string;
}

export const LAMBDA_FUNCTIONS: readonly LambdaFunction[] = PASSLANE_FUNCTIONS.map(({ name, entry }) => ({ name, entry }));

/** The file inside each zip, so every function's handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';
