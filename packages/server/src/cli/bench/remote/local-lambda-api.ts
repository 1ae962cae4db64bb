/**
 * The few Lambda API routes `passlane bench --remote` uses, served locally over HTTP, calling a
 * handler in-process: GET and PUT /2015-03-31/functions/{name}/configuration, POST
 * /2015-03-31/functions/{name}/invocations. Point the SDK's `endpoint` at it and the real client
 * code path runs without AWS. Like AWS, an update reports InProgress for a while (`pendingPolls`
 * reads) before Successful, so the waiting code is exercised too. Loopback only; no auth check.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LambdaArchitecture } from './lambda-pricing.js';

export type LocalLambdaHandler = (
  event: unknown,
  context: { memoryLimitInMB: string; functionName: string; getRemainingTimeInMillis(): number },
) => Promise<unknown>;

export interface LocalLambdaFunction {
  handler: LocalLambdaHandler;
  memorySizeMB: number;
  architecture?: LambdaArchitecture;
  timeoutSeconds?: number;
}

export interface LocalLambdaCall {
  method: string;
  functionName: string;
  route: 'configuration' | 'invocations';
  memorySizeMB?: number;
}

export interface LocalLambdaApi {
  endpoint: string;
  /** Every request, in order: what the tests assert on. */
  calls: LocalLambdaCall[];
  memorySizeOf(functionName: string): number;
  stop(): Promise<void>;
}

const ROUTE = /^\/2015-03-31\/functions\/([^/]+)\/(configuration|invocations)$/;

export async function startLocalLambdaApi(options: {
  functions: Record<string, LocalLambdaFunction>;
  pendingPolls?: number;
  port?: number;
}): Promise<LocalLambdaApi> {
  const state = new Map(Object.entries(options.functions).map(([name, f]) => [name, { ...f, pending: 0 }]));
  const calls: LocalLambdaCall[] = [];

  const configuration = (name: string) => {
    const f = state.get(name)!;
    const status = f.pending > 0 ? 'InProgress' : 'Successful';
    if (f.pending > 0) f.pending--;
    return {
      FunctionName: name,
      FunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
      Runtime: 'nodejs22.x',
      MemorySize: f.memorySizeMB,
      Timeout: f.timeoutSeconds ?? 900,
      Architectures: [f.architecture ?? 'x86_64'],
      State: 'Active',
      LastUpdateStatus: status,
    };
  };

  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const awsError = (response: ServerResponse, status: number, type: string, message: string) =>
    send(response, status, { Type: 'User', message }, { 'x-amzn-errortype': type });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const match = ROUTE.exec(url.pathname);
    if (!match) return awsError(response, 404, 'UnknownOperationException', `no route ${request.method} ${url.pathname}`);
    const name = decodeURIComponent(match[1]!);
    const route = match[2] as LocalLambdaCall['route'];
    const method = request.method ?? 'GET';
    const chunks: Buffer[] = [];
    for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    const f = state.get(name);
    calls.push({ method, functionName: name, route, ...(f && { memorySizeMB: f.memorySizeMB }) });
    if (!f) return awsError(response, 404, 'ResourceNotFoundException', `Function not found: ${name}`);

    if (route === 'configuration' && method === 'GET') return send(response, 200, configuration(name));
    if (route === 'configuration' && method === 'PUT') {
      const update = JSON.parse(body || '{}') as { MemorySize?: number };
      // The log shows what was asked for, also when it is refused.
      if (update.MemorySize !== undefined) calls[calls.length - 1]!.memorySizeMB = update.MemorySize;
      if (f.pending > 0) return awsError(response, 409, 'ResourceConflictException', 'An update is in progress');
      if (update.MemorySize !== undefined) {
        if (!Number.isInteger(update.MemorySize) || update.MemorySize < 128 || update.MemorySize > 10240) {
          return awsError(response, 400, 'InvalidParameterValueException', 'MemorySize must be from 128 to 10240');
        }
        f.memorySizeMB = update.MemorySize;
      }
      f.pending = options.pendingPolls ?? 1;
      return send(response, 200, { ...configuration(name), LastUpdateStatus: 'InProgress' });
    }
    if (route === 'invocations' && method === 'POST') {
      const deadline = Date.now() + (f.timeoutSeconds ?? 900) * 1000;
      try {
        const result = await f.handler(body ? (JSON.parse(body) as unknown) : {}, {
          memoryLimitInMB: String(f.memorySizeMB),
          functionName: name,
          getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
        });
        return send(response, 200, JSON.stringify(result ?? null), { 'x-amz-executed-version': '$LATEST' });
      } catch (error) {
        // As Lambda reports a handler's exception: 200, X-Amz-Function-Error, the error as payload.
        const e = error instanceof Error ? error : new Error(String(error));
        return send(response, 200, { errorType: e.name, errorMessage: e.message }, { 'x-amz-function-error': 'Unhandled' });
      }
    }
    return awsError(response, 405, 'UnknownOperationException', `${method} not allowed on ${route}`);
  }

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (!response.headersSent) awsError(response, 500, 'ServiceException', error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    memorySizeOf: (name) => state.get(name)!.memorySizeMB,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
