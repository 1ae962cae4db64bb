/**
 * An API Gateway Lambda authorizer for the team's other APIs: a passlane access token whose
 * session is still live (HTTP API payload 2.0 simple responses; REST TOKEN and REQUEST). Public
 * keys and the sessions items only; no private key, hasher or SSM. See infra/README.md.
 */
import { lambdaAuthorizer } from '../packages/server/src/runtimes/lambda/lambda-authorizer.js';
import { getAuthorizerDependencies } from '../packages/server/src/runtimes/lambda/lambda-authorizer-dependencies.js';

export const handler = lambdaAuthorizer(getAuthorizerDependencies);
