/**
 * A hook behind an HTTPS endpoint: one POST per question, signed exactly as Standard Webhooks
 * signs (`webhook-id`, `webhook-timestamp`, `webhook-signature`), with the `standardwebhooks`
 * package, so a receiver verifies it with any Standard Webhooks library. Several secrets give
 * several space-separated signatures: a receiver holding either key accepts (rotation).
 * The runtime's fetch, so every host (the Worker too) calls it the same way.
 */
import { Webhook } from 'standardwebhooks';
import { HookConfigError, HookUnavailableError } from './errors.js';
import type { HookCaller } from './hook-caller.js';
import { parseAnswer, readCapped } from './read-answer.js';
import { withinTimeout } from './within-timeout.js';

export interface HttpsHookOptions {
  /** Checked by the configuration (https, or http on a loopback host). */
  url: string;
  /** Standard Webhooks secrets (`whsec_` and base64 of 24 to 64 bytes). */
  secrets: readonly string[];
  timeoutMs: number;
  /** Injected in tests; the platform's `fetch` otherwise. */
  fetch?: typeof fetch;
  /** The signature's `webhook-timestamp`; injected in tests. */
  now?: () => Date;
}

export function createHttpsHook(options: HttpsHookOptions): HookCaller {
  const { url, timeoutMs } = options;
  if (options.secrets.length === 0) throw new HookConfigError('an HTTPS hook needs at least one secret: its requests are signed');
  const signers = options.secrets.map((secret, index) => webhookOf(secret, index));
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? (() => new Date());
  return (event) =>
    withinTimeout(timeoutMs, async (signal) => {
      const body = JSON.stringify(event);
      // A fresh id per call: a receiver that dedupes by it never drops a second login's question.
      const id = `msg_${crypto.randomUUID()}`;
      const at = now();
      const signature = signers.map((signer) => signer.sign(id, at, body)).join(' ');
      const response = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': 'passlane',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
        // Never followed: a redirect would send the account's data on to another address.
        redirect: 'manual',
        signal,
      });
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel().catch(() => {});
        throw new HookUnavailableError('status', { status: response.status });
      }
      return parseAnswer(await readCapped(response));
    });
}

/** The library's signer for one secret; a bad secret is named by its place in the list, never shown. */
function webhookOf(secret: string, index: number): Webhook {
  let webhook: Webhook;
  try {
    webhook = new Webhook(secret);
  } catch {
    throw new HookConfigError(`secret ${index + 1} is not a Standard Webhooks secret (whsec_ and base64)`);
  }
  return webhook;
}
