/**
 * A stand-in for Amazon EventBridge on 127.0.0.1: just PutEvents over the AWS JSON 1.1 protocol
 * (POST /, `X-Amz-Target: AWSEvents.PutEvents`), which is what the SDK's EventBridgeClient sends.
 * AWS itself is not reachable from tests; this answers the same wire format, keeps every entry it
 * was given, and can be told to refuse: the whole call (a 5xx or a throttle, which the SDK
 * retries), or entries one by one (a 200 with FailedEntryCount, which it does not).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface PutEventsEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  EventBusName?: string;
  Time?: number | string;
  Resources?: string[];
}

export interface PutEventsRecord {
  authorization: string | undefined;
  entries: PutEventsEntry[];
}

/** How the next calls are answered. */
export type EventBridgeBehaviour =
  | { kind: 'accept' }
  /** The call fails as a whole with this HTTP status and error type. */
  | { kind: 'fail'; status: number; type: string }
  /**
   * A 200 with the entries `when` picks (all by default) failed with this code (PutEvents'
   * partial failure), the others taken; after `times` such calls (if given), it accepts again.
   */
  | { kind: 'rejectEntries'; code: string; when?: (entry: PutEventsEntry) => boolean; times?: number };

export interface LocalEventBridgeEndpoint {
  endpoint: string;
  /** Every PutEvents call that reached it, accepted or not. */
  requests: PutEventsRecord[];
  /** The entries it accepted, in order. */
  accepted: PutEventsEntry[];
  behave(behaviour: EventBridgeBehaviour): void;
  stop(): Promise<void>;
}

export async function startLocalEventBridgeEndpoint(): Promise<LocalEventBridgeEndpoint> {
  const requests: PutEventsRecord[] = [];
  const accepted: PutEventsEntry[] = [];
  let behaviour: EventBridgeBehaviour = { kind: 'accept' };
  let sequence = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { Entries?: PutEventsEntry[] };
      const target = header(request.headers, 'x-amz-target');
      const reply = (status: number, payload: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': `local-${requests.length}` });
        response.end(JSON.stringify(payload));
      };
      if (request.method !== 'POST' || target !== 'AWSEvents.PutEvents') {
        reply(400, { __type: 'UnknownOperationException', message: `unsupported: ${request.method} ${target}` });
        return;
      }
      const entries = body.Entries ?? [];
      requests.push({ authorization: header(request.headers, 'authorization'), entries });
      if (behaviour.kind === 'fail') {
        reply(behaviour.status, { __type: behaviour.type, message: 'refused by the test' });
        return;
      }
      if (behaviour.kind === 'rejectEntries') {
        const { code, when = () => true } = behaviour;
        const refused = entries.map((entry) => when(entry));
        if (refused.some(Boolean) && behaviour.times !== undefined && --behaviour.times <= 0) behaviour = { kind: 'accept' };
        accepted.push(...entries.filter((_, index) => !refused[index]));
        reply(200, {
          FailedEntryCount: refused.filter(Boolean).length,
          Entries: entries.map((_, index) => (refused[index] ? { ErrorCode: code, ErrorMessage: 'refused by the test' } : { EventId: `local-event-${++sequence}` })),
        });
        return;
      }
      accepted.push(...entries);
      reply(200, { FailedEntryCount: 0, Entries: entries.map(() => ({ EventId: `local-event-${++sequence}` })) });
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
    accepted,
    behave: (next) => {
      behaviour = { ...next };
    },
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
