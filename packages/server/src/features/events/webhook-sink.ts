import { Webhook } from 'standardwebhooks';
import type { AccountEvent } from '../../events/account-event.js';
import { EventDeliveryError, type EventSink } from './event-sink.js';
import type { WebhookSettings } from './settings.js';

export interface WebhookSinkOptions {
  /** How long the endpoint may take to answer. */
  timeoutMs: number;
  /** The signature's timestamp: receivers refuse one more than five minutes off their clock. */
  now: () => Date;
  /** The HTTP client; the runtime's fetch unless given. */
  fetch?: typeof fetch;
}

/** The sink's name for an endpoint: counts, status and dead letters are kept under it. */
export function webhookSinkName(name: string): string {
  return `webhook:${name}`;
}

/**
 * One endpoint as a sink, per the Standard Webhooks specification (features/events/README.md):
 * a POST of the event as JSON with `webhook-id` (the event's id, the receiver's idempotency key),
 * `webhook-timestamp` (epoch seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">`, one per configured secret, space-separated, so a secret is rotated
 * by adding the new one first and removing the old once receivers have switched). Any 2xx is
 * delivered; anything else, a redirect, a timeout or no answer is a failure, retried.
 * Redirects are not followed: a signed event goes to the configured URL only.
 */
export function createWebhookSink(endpoint: WebhookSettings, options: WebhookSinkOptions): EventSink {
  const name = webhookSinkName(endpoint.name);
  const signers = endpoint.secrets.map((secret) => new Webhook(secret));
  const send = options.fetch ?? fetch;
  return {
    name,
    async deliver(event: AccountEvent): Promise<void> {
      const body = JSON.stringify(event);
      const timestamp = options.now();
      const signature = signers.map((signer) => signer.sign(event.id, timestamp, body)).join(' ');
      let response: Response;
      try {
        response = await send(endpoint.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'passlane-webhooks',
            'webhook-id': event.id,
            'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
            'webhook-signature': signature,
          },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (error) {
        throw new EventDeliveryError(name, describeFetchFailure(error, options.timeoutMs), { cause: error });
      }
      // The answer's body is not read (nor kept: it is the receiver's, maybe an echo of the event).
      await response.body?.cancel().catch(() => {});
      if (response.status < 200 || response.status > 299) {
        throw new EventDeliveryError(name, `HTTP ${response.status}${response.status >= 300 && response.status < 400 ? ' (a redirect: not followed)' : ''}`);
      }
    },
  };
}

/** What stood in the way, without the URL (it may hold a token) or a message that could echo it. */
function describeFetchFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? `no connection (${code})` : 'no connection';
}
