/**
 * Every Lambda function: its key in serverless.yml (also the zip's name) and its entry file.
 * serverless.yml points each function at `.package/<arch>/<name>.zip`; the packaging test
 * checks that the two lists and functions/*.ts agree.
 */
export interface LambdaFunction {
  name: string;
  entry: string;
}

export const LAMBDA_FUNCTIONS: readonly LambdaFunction[] = [
  { name: 'register', entry: 'functions/register.ts' },
  { name: 'login', entry: 'functions/login.ts' },
  { name: 'token', entry: 'functions/token.ts' },
  { name: 'sessions', entry: 'functions/sessions.ts' },
  { name: 'password', entry: 'functions/password.ts' },
  { name: 'recovery', entry: 'functions/recovery.ts' },
  { name: 'jwks', entry: 'functions/jwks.ts' },
  { name: 'openidConfiguration', entry: 'functions/openid-configuration.ts' },
  { name: 'authorizer', entry: 'functions/authorizer.ts' },
  { name: 'rehash', entry: 'functions/rehash.ts' },
  { name: 'bench', entry: 'functions/bench.ts' },
];

/** The file inside each zip, so every function's handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';
