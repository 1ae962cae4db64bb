import { randomUUID } from 'node:crypto';

/** The request API Gateway authorizes: a route of another API on the same account. */
const API_ID = 'other123';
export const METHOD_ARN = `arn:aws:execute-api:eu-west-1:123456789012:${API_ID}/prod/GET/profile`;

/** An HTTP API Lambda authorizer event, payload 2.0, identity source `$request.header.Authorization`. */
export function httpApiAuthorizerEvent(authorization: string | undefined) {
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:eu-west-1:123456789012:${API_ID}/$default/GET/profile`,
    identitySource: authorization === undefined ? [] : [authorization],
    routeKey: 'GET /profile',
    rawPath: '/profile',
    rawQueryString: '',
    headers: { host: `${API_ID}.execute-api.eu-west-1.amazonaws.com`, 'user-agent': 'vitest', ...(authorization !== undefined && { authorization }) },
    requestContext: {
      accountId: '123456789012',
      apiId: API_ID,
      domainName: `${API_ID}.execute-api.eu-west-1.amazonaws.com`,
      http: { method: 'GET', path: '/profile', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'vitest' },
      requestId: randomUUID(),
      routeKey: 'GET /profile',
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
  };
}

/** A REST API TOKEN authorizer event: the identity source's value (the Authorization header) and the method. */
export function restTokenAuthorizerEvent(authorization: string | undefined) {
  return { type: 'TOKEN', methodArn: METHOD_ARN, ...(authorization !== undefined && { authorizationToken: authorization }) };
}

/** A REST API REQUEST authorizer event, header names as the client sent them. */
export function restRequestAuthorizerEvent(authorization: string | undefined) {
  const headers = { Host: `${API_ID}.execute-api.eu-west-1.amazonaws.com`, ...(authorization !== undefined && { Authorization: authorization }) };
  return {
    type: 'REQUEST',
    methodArn: METHOD_ARN,
    resource: '/profile',
    path: '/profile',
    httpMethod: 'GET',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: { accountId: '123456789012', apiId: API_ID, httpMethod: 'GET', requestId: randomUUID(), resourcePath: '/profile', stage: 'prod' },
  };
}
