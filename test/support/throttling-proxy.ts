/**
 * A proxy in front of a DynamoDB server that throttles writes to chosen items, as DynamoDB
 * throttles a partition past its write capacity (about 1,000 writes a second per key): every
 * UpdateItem, PutItem or DeleteItem whose key the predicate picks is answered 400
 * ProvisionedThroughputExceededException; everything else is forwarded untouched.
 */
import { request as forward, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

const WRITES = new Set(['DynamoDB_20120810.UpdateItem', 'DynamoDB_20120810.PutItem', 'DynamoDB_20120810.DeleteItem']);

export interface ThrottlingProxy {
  endpoint: string;
  /** Throttle writes to the items whose partition key this accepts; undefined: throttle none. */
  throttle(keys: ((pk: string) => boolean) | undefined): void;
  /** Writes refused so far, by partition key. */
  refused: string[];
  stop(): Promise<void>;
}

export async function startThrottlingProxy(target: string): Promise<ThrottlingProxy> {
  const upstream = new URL(target);
  let picks: ((pk: string) => boolean) | undefined;
  const refused: string[] = [];
  const server: Server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = String(incoming.headers['x-amz-target'] ?? '');
      if (picks !== undefined && WRITES.has(operation)) {
        const pk = (JSON.parse(body.toString('utf8')) as { Key?: { pk?: { S?: string } }; Item?: { pk?: { S?: string } } });
        const key = pk.Key?.pk?.S ?? pk.Item?.pk?.S ?? '';
        if (picks(key)) {
          refused.push(key);
          const answer = JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'injected: the key is hot' });
          outgoing.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' }).end(answer);
          return;
        }
      }
      const onward = forward(
        { host: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
        (response) => {
          outgoing.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(outgoing);
        },
      );
      onward.on('error', () => outgoing.writeHead(502).end());
      onward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    throttle: (keys) => void (picks = keys),
    refused,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
