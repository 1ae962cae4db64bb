import { randomUUID } from 'node:crypto';

export interface HttpApiEventOptions {
  /** Default 203.0.113.7 (a documentation address). */
  sourceIp?: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** The API's id, which names its execute-api domain; default `api123`. */
  apiId?: string;
  /** The raw query string, without `?`. */
  query?: string;
  /**
   * The IAM principal's ARN, as API Gateway's AWS_IAM authorization adds it
   * (requestContext.authorizer.iam): the operator API's caller on Lambda.
   */
  iamPrincipal?: string;
}

/** An API Gateway HTTP API (payload 2.0) event with a JSON body, as the routes in serverless.yml deliver it. */
export function httpApiEvent(method: string, path: string, body?: unknown, options: HttpApiEventOptions = {}) {
  const apiId = options.apiId ?? 'api123';
  const domainName = `${apiId}.execute-api.eu-west-1.amazonaws.com`;
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: options.query ?? '',
    headers: {
      'content-type': 'application/json',
      host: domainName,
      'x-forwarded-proto': 'https',
      ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
    },
    requestContext: {
      accountId: '123456789012',
      apiId,
      domainName,
      domainPrefix: apiId,
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: options.sourceIp ?? '203.0.113.7', userAgent: 'vitest' },
      requestId: randomUUID(),
      routeKey: `${method} ${path}`,
      ...(options.iamPrincipal !== undefined && {
        authorizer: {
          iam: {
            accessKey: 'ASIAOPERATOR',
            accountId: '123456789012',
            callerId: 'AROAOPERATOR:operator',
            principalOrgId: null,
            userArn: options.iamPrincipal,
            userId: 'AROAOPERATOR:operator',
          },
        },
      }),
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  };
}
