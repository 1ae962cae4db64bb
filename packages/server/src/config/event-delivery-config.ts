import { DEFAULT_EVENT_DELIVERY, type EventDeliverySettings, type WebhookSettings } from '../features/events/settings.js';
import { ConfigError } from './config-error.js';
import { httpsOrLoopbackUrl, json, text, wholeNumber, type Env } from './env.js';

const WEBHOOKS = 'PASSLANE_WEBHOOKS';
const NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
/** Standard Webhooks: `whsec_` and the base64 of the key, 24 to 64 bytes. */
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const MAX_WEBHOOKS = 10;
/** The current secret and the one being retired; a third would only cost every request a signature. */
const MAX_SECRETS = 2;
/** A bus name (letters, digits, `.`, `-`, `_`) or its ARN. */
const EVENT_BUS = /^(arn:aws[a-z-]*:events:[a-z0-9-]+:\d{12}:event-bus\/)?[A-Za-z0-9._-]{1,256}$/;

/**
 * Where account events go and how (features/events): PASSLANE_WEBHOOKS, a JSON array of
 * `{ "name", "url", "secrets": ["whsec_..."] }` (a secret may come apart instead, in
 * PASSLANE_WEBHOOK_<NAME>_SECRETS, comma-separated: where a secret store's value goes);
 * PASSLANE_EVENT_BUS, the EventBridge bus the `events` function publishes to on AWS; the lease,
 * the attempts, the backoff, the webhook timeout and the sweep interval. Undefined when neither a
 * webhook nor a bus is set: nothing is delivered. Read apart from readConfig, as the hosts that
 * deliver ask for it (the API functions record events, they deliver none). Secrets and URLs are
 * never quoted (a URL may carry a token).
 */
export function readEventDeliveryConfig(env: Env): EventDeliverySettings | undefined {
  const webhooks = readWebhooks(env);
  const eventBus = text(env, 'PASSLANE_EVENT_BUS');
  if (eventBus !== undefined && !EVENT_BUS.test(eventBus)) throw new ConfigError('PASSLANE_EVENT_BUS', 'must be an EventBridge bus name (letters, digits, ., -, _) or its ARN');
  if (webhooks.length === 0 && eventBus === undefined) return undefined;
  const webhookTimeoutMs = wholeNumber(env, 'PASSLANE_WEBHOOK_TIMEOUT_MS', { fallback: DEFAULT_EVENT_DELIVERY.webhookTimeoutMs, min: 100, max: 60_000 });
  const leaseMs = wholeNumber(env, 'PASSLANE_EVENT_LEASE_S', { fallback: DEFAULT_EVENT_DELIVERY.leaseMs / 1000, min: 1, max: 900 }) * 1000;
  // A live deliverer must not lose its lease while one event goes to every sink in turn.
  const slowest = webhookTimeoutMs * webhooks.length + (eventBus === undefined ? 0 : 10_000);
  if (leaseMs < slowest) throw new ConfigError('PASSLANE_EVENT_LEASE_S', `must be at least ${Math.ceil(slowest / 1000)} s: one event to every sink may take the webhook timeout (PASSLANE_WEBHOOK_TIMEOUT_MS) per webhook`);
  const retryBaseMs = wholeNumber(env, 'PASSLANE_EVENT_RETRY_BASE_MS', { fallback: DEFAULT_EVENT_DELIVERY.retryBaseMs, min: 10, max: 3_600_000 });
  const retryMaxMs = wholeNumber(env, 'PASSLANE_EVENT_RETRY_MAX_S', { fallback: DEFAULT_EVENT_DELIVERY.retryMaxMs / 1000, min: 1, max: 86_400 }) * 1000;
  if (retryMaxMs < retryBaseMs) throw new ConfigError('PASSLANE_EVENT_RETRY_MAX_S', 'must not be shorter than PASSLANE_EVENT_RETRY_BASE_MS');
  return {
    webhooks,
    ...(eventBus !== undefined && { eventBus }),
    eventSource: DEFAULT_EVENT_DELIVERY.eventSource,
    leaseMs,
    maxAttempts: wholeNumber(env, 'PASSLANE_EVENT_MAX_ATTEMPTS', { fallback: DEFAULT_EVENT_DELIVERY.maxAttempts, min: 1, max: 100 }),
    retryBaseMs,
    retryMaxMs,
    webhookTimeoutMs,
    sweepIntervalMs: wholeNumber(env, 'PASSLANE_EVENT_SWEEP_S', { fallback: DEFAULT_EVENT_DELIVERY.sweepIntervalMs / 1000, min: 1, max: 86_400 }) * 1000,
    deadLetterDays: wholeNumber(env, 'PASSLANE_EVENT_DEAD_LETTER_DAYS', { fallback: DEFAULT_EVENT_DELIVERY.deadLetterDays, min: 1, max: 365 }),
  };
}

function readWebhooks(env: Env): WebhookSettings[] {
  const value = json(env, WEBHOOKS);
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ConfigError(WEBHOOKS, 'must be a JSON array of { "name", "url", "secrets": ["whsec_..."] }');
  if (value.length > MAX_WEBHOOKS) throw new ConfigError(WEBHOOKS, `has ${value.length} webhooks; at most ${MAX_WEBHOOKS}`);
  const names = new Set<string>();
  return value.map((entry: unknown, index) => {
    const fail = (why: string) => new ConfigError(WEBHOOKS, `webhook ${index + 1} ${why}`);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw fail('must be an object { "name", "url", "secrets" }');
    const { name, url, secrets, ...extra } = entry as Record<string, unknown>;
    const unknown = Object.keys(extra)[0];
    if (unknown !== undefined) throw fail(`has an unknown field ${JSON.stringify(unknown.slice(0, 40))} (name, url, secrets)`);
    if (typeof name !== 'string' || !NAME.test(name)) throw fail('needs a "name" of 1 to 40 lower-case letters, digits and -');
    if (names.has(name)) throw fail(`repeats the name ${JSON.stringify(name)}: each webhook's counts are kept under its name`);
    names.add(name);
    const named = (why: string) => new ConfigError(WEBHOOKS, `webhook ${JSON.stringify(name)} ${why}`);
    if (typeof url !== 'string') throw named('needs a "url"');
    const parsed = httpsOrLoopbackUrl(url, named, { notUrl: 'has a "url" that is not a URL', notHttps: 'must have an https "url" (http only to localhost, 127.0.0.1 or [::1]): the events carry addresses' });
    return { name, url: parsed.href, secrets: readSecrets(env, name, secrets, named) };
  });
}

function readSecrets(env: Env, name: string, inline: unknown, fail: (why: string) => ConfigError): string[] {
  const apart = `PASSLANE_WEBHOOK_${name.toUpperCase().replaceAll('-', '_')}_SECRETS`;
  const separate = text(env, apart);
  if (separate !== undefined && inline !== undefined) throw fail(`has "secrets" and ${apart} is set too: keep them in one place`);
  const secrets = separate !== undefined ? separate.split(',').map((secret) => secret.trim()) : inline;
  const where = separate !== undefined ? apart : `${WEBHOOKS}'s "secrets"`;
  if (!Array.isArray(secrets) || secrets.length === 0) throw fail(`needs its signing secrets: "secrets": ["whsec_..."], or ${apart}`);
  if (secrets.length > MAX_SECRETS) throw fail(`has ${secrets.length} secrets in ${where}; at most ${MAX_SECRETS} (the current one and the one being retired)`);
  secrets.forEach((secret: unknown, index) => {
    const bytes = typeof secret === 'string' && SECRET.test(secret) ? decodedLength(secret.slice('whsec_'.length)) : 0;
    if (bytes < 24 || bytes > 64) throw fail(`has a secret (${index + 1} in ${where}) that is not whsec_ and the base64 of 24 to 64 random bytes (\`passlane keygen\` prints one)`);
  });
  return secrets as string[];
}

function decodedLength(base64: string): number {
  return Math.floor((base64.replace(/=+$/, '').length * 3) / 4);
}
