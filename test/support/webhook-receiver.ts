/**
 * A real HTTP receiver of webhooks for the events tests: every request is checked with the
 * `standardwebhooks` package (third-party verification: Webhook.verify, any of the given secrets),
 * and the verified events are kept in arrival order. `answer` decides each reply (a status, or a
 * promise the test holds to keep the request open).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedEvent {
  id: string;
  type: string;
  time: string;
  accountId: string;
  data: Record<string, unknown>;
}

export interface WebhookReceiver {
  url: string;
  /** Every verified delivery, in arrival order (duplicates included). */
  received: ReceivedEvent[];
  /** Requests whose signature no secret verified (each a reason). */
  refused: string[];
  /** The headers of every request, in arrival order. */
  headers: Array<Record<string, string>>;
  stop(): Promise<void>;
}

export type Answer = (event: ReceivedEvent, index: number) => number | Promise<number>;

export async function startWebhookReceiver(secrets: string[], answer: Answer = () => 204): Promise<WebhookReceiver> {
  const verifiers = secrets.map((secret) => new Webhook(secret));
  const received: ReceivedEvent[] = [];
  const refused: string[] = [];
  const headers: Array<Record<string, string>> = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') flat[name] = value;
      headers.push(flat);
      let event: ReceivedEvent | undefined;
      const reasons: string[] = [];
      for (const verifier of verifiers) {
        try {
          event = verifier.verify(body, flat) as ReceivedEvent;
          break;
        } catch (error) {
          reasons.push(error instanceof Error ? error.message : String(error));
        }
      }
      if (event === undefined) {
        refused.push(reasons.join('; '));
        response.writeHead(401).end();
        return;
      }
      const index = received.push(event) - 1;
      const status = await answer(event, index);
      if (!response.destroyed) response.writeHead(status).end();
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    refused,
    headers,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A request's whole body, as text. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

/** A fresh Standard Webhooks secret: whsec_ and base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
}
