/** PASSLANE_WEBHOOKS, PASSLANE_EVENT_BUS and the delivery's timing (config/event-delivery-config.ts): defaults, and refusals that name the setting and never quote a secret or a URL. */
import { describe, expect, it } from 'vitest';
import { readEventDeliveryConfig } from '../packages/server/src/config/event-delivery-config.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { DEFAULT_EVENT_DELIVERY } from '../packages/server/src/features/events/settings.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
const hooks = (value: unknown) => ({ PASSLANE_WEBHOOKS: JSON.stringify(value) });

function refusal(env: Record<string, string>): ConfigError {
  try {
    readEventDeliveryConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('accepted');
}

describe('event delivery settings', () => {
  it('is off with neither a webhook nor a bus', () => {
    expect(readEventDeliveryConfig({})).toBeUndefined();
    expect(readEventDeliveryConfig({ PASSLANE_WEBHOOKS: ' ', PASSLANE_EVENT_BUS: '' })).toBeUndefined();
  });

  it('reads webhooks with their secrets (inline or apart) and the defaults', () => {
    expect(readEventDeliveryConfig(hooks([{ name: 'crm', url: 'https://hooks.example.com/in', secrets: [SECRET, OLD_SECRET] }]))).toEqual({
      ...DEFAULT_EVENT_DELIVERY,
      webhooks: [{ name: 'crm', url: 'https://hooks.example.com/in', secrets: [SECRET, OLD_SECRET] }],
    });
    const apart = readEventDeliveryConfig({ ...hooks([{ name: 'data-lake', url: 'http://127.0.0.1:9000/x' }]), PASSLANE_WEBHOOK_DATA_LAKE_SECRETS: `${SECRET}, ${OLD_SECRET}` });
    expect(apart?.webhooks[0]?.secrets).toEqual([SECRET, OLD_SECRET]);
    expect(readEventDeliveryConfig({ PASSLANE_EVENT_BUS: 'arn:aws:events:eu-west-1:123456789012:event-bus/accounts' })?.eventBus).toBe('arn:aws:events:eu-west-1:123456789012:event-bus/accounts');
  });

  it('reads the timing settings', () => {
    const settings = readEventDeliveryConfig({
      ...hooks([{ name: 'crm', url: 'https://hooks.example.com', secrets: [SECRET] }]),
      PASSLANE_EVENT_LEASE_S: '30',
      PASSLANE_EVENT_MAX_ATTEMPTS: '5',
      PASSLANE_EVENT_RETRY_BASE_MS: '250',
      PASSLANE_EVENT_RETRY_MAX_S: '60',
      PASSLANE_WEBHOOK_TIMEOUT_MS: '3000',
      PASSLANE_EVENT_SWEEP_S: '5',
      PASSLANE_EVENT_DEAD_LETTER_DAYS: '30',
    });
    expect(settings).toMatchObject({ leaseMs: 30_000, maxAttempts: 5, retryBaseMs: 250, retryMaxMs: 60_000, webhookTimeoutMs: 3_000, sweepIntervalMs: 5_000, deadLetterDays: 30 });
  });

  it.each([
    ['not JSON', { PASSLANE_WEBHOOKS: `[{"secrets":["${SECRET}"]` }, 'PASSLANE_WEBHOOKS', 'is not valid JSON'],
    ['an object, not an array', hooks({ crm: {} }), 'PASSLANE_WEBHOOKS', 'must be a JSON array'],
    ['a bad name', hooks([{ name: 'CRM!', url: 'https://x.example', secrets: [SECRET] }]), 'PASSLANE_WEBHOOKS', 'webhook 1 needs a "name"'],
    ['a repeated name', hooks([{ name: 'a', url: 'https://x.example', secrets: [SECRET] }, { name: 'a', url: 'https://y.example', secrets: [SECRET] }]), 'PASSLANE_WEBHOOKS', 'webhook 2 repeats the name'],
    ['plain http elsewhere', hooks([{ name: 'a', url: 'http://hooks.example.com/?token=abc', secrets: [SECRET] }]), 'PASSLANE_WEBHOOKS', 'must have an https "url"'],
    ['no secret', hooks([{ name: 'a', url: 'https://x.example' }]), 'PASSLANE_WEBHOOKS', 'needs its signing secrets'],
    ['a short secret', hooks([{ name: 'a', url: 'https://x.example', secrets: ['whsec_c2hvcnQ='] }]), 'PASSLANE_WEBHOOKS', 'has a secret (1 in'],
    ['a secret without the prefix', hooks([{ name: 'a', url: 'https://x.example', secrets: [SECRET.slice(6)] }]), 'PASSLANE_WEBHOOKS', 'has a secret (1 in'],
    ['three secrets', hooks([{ name: 'a', url: 'https://x.example', secrets: [SECRET, SECRET, SECRET] }]), 'PASSLANE_WEBHOOKS', 'at most 2'],
    ['an unknown field', hooks([{ name: 'a', url: 'https://x.example', secrets: [SECRET], secret: SECRET }]), 'PASSLANE_WEBHOOKS', 'unknown field "secret"'],
    ['a bad bus', { PASSLANE_EVENT_BUS: 'no spaces allowed' }, 'PASSLANE_EVENT_BUS', 'must be an EventBridge bus name'],
    ['a lease shorter than the timeouts', { ...hooks([{ name: 'a', url: 'https://x.example', secrets: [SECRET] }]), PASSLANE_EVENT_LEASE_S: '5' }, 'PASSLANE_EVENT_LEASE_S', 'must be at least 10 s'],
    ['zero attempts', { ...hooks([{ name: 'a', url: 'https://x.example', secrets: [SECRET] }]), PASSLANE_EVENT_MAX_ATTEMPTS: '0' }, 'PASSLANE_EVENT_MAX_ATTEMPTS', 'whole number from 1'],
    ['a cap below the base', { ...hooks([{ name: 'a', url: 'https://x.example', secrets: [SECRET] }]), PASSLANE_EVENT_RETRY_BASE_MS: '5000', PASSLANE_EVENT_RETRY_MAX_S: '1' }, 'PASSLANE_EVENT_RETRY_MAX_S', 'must not be shorter'],
  ])('refuses %s, naming the setting', (_, env, variable, words) => {
    const error = refusal(env as Record<string, string>);
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(words);
    // Never the secret, nor the URL (it may carry a token).
    expect(error.message).not.toContain(SECRET.slice(6, 20));
    expect(error.message).not.toContain('token=abc');
  });

  it('refuses secrets in both places, naming the variable apart', () => {
    const error = refusal({ ...hooks([{ name: 'crm', url: 'https://x.example', secrets: [SECRET] }]), PASSLANE_WEBHOOK_CRM_SECRETS: SECRET });
    expect(error.message).toContain('PASSLANE_WEBHOOK_CRM_SECRETS is set too');
    expect(error.message).not.toContain(SECRET.slice(6, 20));
  });
});
