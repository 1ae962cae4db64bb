/**
 * A team's hook endpoint as a test stands it up: an HTTP server on 127.0.0.1 that verifies every
 * request with the `standardwebhooks` package (third-party verification: a test passes only if
 * passlane signs as the specification says), records what arrived, and answers what the test
 * tells it to. Used by the hooks' tests, the contract suite and the login bench.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { readBody } from './webhook-receiver.js';

// The secret and the body as the events' receiver makes and reads them: one of each for both receivers.
export { newWebhookSecret } from './webhook-receiver.js';

export interface ReceivedHook {
  headers: Record<string, string>;
  body: string;
  /** The verified payload (`type`, `timestamp`, `data`), or undefined when the signature failed. */
  event?: { type: string; timestamp: string; data: Record<string, unknown> };
}

/** What the receiver answers: a status and a body (JSON-encoded unless a string), after an optional delay. */
export interface HookReply {
  status?: number;
  body?: unknown;
  delayMs?: number;
}

export interface HookReceiver {
  url: string;
  received: ReceivedHook[];
  /** Decides each answer; verified events only (a bad signature is answered 401 before this). */
  reply: (event: NonNullable<ReceivedHook['event']>) => HookReply;
  stop(): Promise<void>;
}

/** `secret`: the one the receiver verifies with (it may be any one of passlane's several). */
export async function startHookReceiver(secret: string, reply: HookReceiver['reply'] = () => ({ body: {} })): Promise<HookReceiver> {
  const webhook = new Webhook(secret);
  const received: ReceivedHook[] = [];
  const receiver: HookReceiver = { url: '', received, reply, stop: async () => {} };
  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      let event: ReceivedHook['event'];
      try {
        event = webhook.verify(body, headers) as ReceivedHook['event'];
      } catch {
        event = undefined;
      }
      received.push({ headers, body, ...(event !== undefined && { event }) });
      if (event === undefined) {
        response.writeHead(401).end('bad signature');
        return;
      }
      const answer = receiver.reply(event);
      if (answer.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      if (!response.destroyed) response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(text);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
