/**
 * A stand-in for SSM Parameter Store on 127.0.0.1: just GetParameter over the AWS JSON 1.1
 * protocol (POST /, `X-Amz-Target: AmazonSSM.GetParameter`), which is what the SDK's SSMClient
 * sends. AWS itself is not reachable from tests; this answers the same wire format.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface SsmRequestRecord {
  target: string | undefined;
  authorization: string | undefined;
  body: { Name?: string; WithDecryption?: boolean };
}

export interface LocalSsmEndpoint {
  endpoint: string;
  requests: SsmRequestRecord[];
  stop(): Promise<void>;
}

export async function startLocalSsmEndpoint(parameters: Record<string, string>): Promise<LocalSsmEndpoint> {
  const requests: SsmRequestRecord[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as SsmRequestRecord['body'];
      const target = header(request.headers, 'x-amz-target');
      requests.push({ target, authorization: header(request.headers, 'authorization'), body });
      const reply = (status: number, payload: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': `local-${requests.length}` });
        response.end(JSON.stringify(payload));
      };
      if (request.method !== 'POST' || target !== 'AmazonSSM.GetParameter') {
        reply(400, { __type: 'InvalidAction', message: `unsupported: ${request.method} ${target}` });
        return;
      }
      const value = body.Name === undefined ? undefined : parameters[body.Name];
      if (value === undefined) {
        reply(400, { __type: 'ParameterNotFound', message: '' });
        return;
      }
      // Without WithDecryption, real SSM returns the KMS ciphertext of a SecureString.
      const shown = body.WithDecryption === true ? value : Buffer.from(`encrypted:${value}`).toString('base64');
      reply(200, { Parameter: { Name: body.Name, Type: 'SecureString', Value: shown, Version: 1, DataType: 'text' } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
