/**
 * The hooks floor (packages/server/src/hooks): an HTTPS hook signed per Standard Webhooks, checked
 * by a real receiver with the `standardwebhooks` package (signature, rotation with two secrets),
 * its timeout, non-2xx and bad answers; the token hook's refusals (reserved claims, the size
 * bound); the sign-up hook's verdicts; the Lambda form through its invoker, both a stand-in and the
 * SDK's real client against the local Lambda API; and the settings' checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startLocalLambdaApi, type LocalLambdaApi } from '../packages/server/src/cli/bench/remote/local-lambda-api.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { readHooksConfig } from '../packages/server/src/config/hooks-config.js';
import { createAwsLambdaInvoker } from '../packages/server/src/hooks/aws-lambda-invoker.js';
import { HookUnavailableError } from '../packages/server/src/hooks/errors.js';
import type { HookEvent } from '../packages/server/src/hooks/hook-caller.js';
import { createHttpsHook } from '../packages/server/src/hooks/https-hook.js';
import { createLambdaHook, type LambdaInvoker } from '../packages/server/src/hooks/lambda-hook.js';
import { createSignupHook } from '../packages/server/src/hooks/signup-hook.js';
import { createTokenHook, MAX_HOOK_CLAIMS_BYTES, RESERVED_CLAIMS } from '../packages/server/src/hooks/token-hook.js';
import { newWebhookSecret, startHookReceiver, type HookReceiver } from './support/hook-receiver.js';

const clock = () => new Date();
const question = { accountId: 'u-1', email: 'ada@example.com', amr: ['pwd'], trigger: 'login' as const };

async function failureOf(promise: Promise<unknown>): Promise<HookUnavailableError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HookUnavailableError);
  return error as HookUnavailableError;
}

describe('an HTTPS hook', () => {
  const current = newWebhookSecret();
  const previous = newWebhookSecret();
  let receiver: HookReceiver;
  let previousReceiver: HookReceiver;

  beforeAll(async () => {
    receiver = await startHookReceiver(current);
    previousReceiver = await startHookReceiver(previous);
  });
  afterAll(async () => {
    await receiver.stop();
    await previousReceiver.stop();
  });

  const tokenHook = (url: string, secrets: string[], timeoutMs = 2_000) =>
    createTokenHook(createHttpsHook({ url, secrets, timeoutMs }), { onFailure: 'refuse', clientId: 'passlane', scope: 'api', now: clock });

  it('signs each request as Standard Webhooks does, and hands back the claims', async () => {
    receiver.reply = () => ({ body: { claims: { tenant: 't-9', roles: ['admin'] } } });
    const claims = await tokenHook(receiver.url, [current]).claims(question);
    expect(claims).toEqual({ tenant: 't-9', roles: ['admin'] });
    const request = receiver.received.at(-1)!;
    expect(request.event).toMatchObject({
      type: 'token.claims_requested',
      data: { accountId: 'u-1', email: 'ada@example.com', amr: ['pwd'], client_id: 'passlane', scope: 'api', trigger: 'login' },
    });
    expect(request.headers['webhook-id']).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    // A receiver holding another key refuses it: the signature is checked, not merely present.
    expect(() => new Webhook(newWebhookSecret()).verify(request.body, request.headers)).toThrow();
  });

  it('signs with every secret, space-separated, so a receiver holding either accepts (rotation)', async () => {
    receiver.reply = () => ({ body: { claims: {} } });
    previousReceiver.reply = () => ({ body: { claims: {} } });
    await tokenHook(receiver.url, [current, previous]).claims(question);
    await tokenHook(previousReceiver.url, [current, previous]).claims(question);
    const [atCurrent, atPrevious] = [receiver.received.at(-1)!, previousReceiver.received.at(-1)!];
    expect(atCurrent.event).toBeDefined();
    expect(atPrevious.event).toBeDefined();
    expect(atCurrent.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const part of atCurrent.headers['webhook-signature']!.split(' ')) expect(part).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('fails closed on a receiver that refuses the signature (a secret neither side shares)', async () => {
    const error = await failureOf(tokenHook(receiver.url, [newWebhookSecret()]).claims(question));
    expect(error).toMatchObject({ reason: 'status', status: 401 });
  });

  it('gives up at its timeout, without waiting for the answer', async () => {
    receiver.reply = () => ({ delayMs: 1_500, body: { claims: {} } });
    const started = Date.now();
    const error = await failureOf(tokenHook(receiver.url, [current], 200).claims(question));
    expect(error.reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('treats a non-2xx answer as a failure, keeping its status', async () => {
    receiver.reply = () => ({ status: 500, body: { claims: { tenant: 'x' } } });
    expect(await failureOf(tokenHook(receiver.url, [current]).claims(question))).toMatchObject({ reason: 'status', status: 500 });
    receiver.reply = () => ({ status: 302, body: '' });
    expect(await failureOf(tokenHook(receiver.url, [current]).claims(question))).toMatchObject({ reason: 'status', status: 302 });
  });

  it('refuses an answer that is not JSON, not an object, or has no claims object', async () => {
    for (const body of ['{"claims":', '[1,2]', '{"claims":[1]}', '{"claim":{}}', '']) {
      receiver.reply = () => ({ body });
      expect((await failureOf(tokenHook(receiver.url, [current]).claims(question))).reason).toBe('malformed_answer');
    }
  });

  it('refuses every reserved claim: iss, sub, aud, exp, iat, jti, sid, amr, auth_time, client_id, scope and more', async () => {
    expect([...RESERVED_CLAIMS]).toEqual(expect.arrayContaining(['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'sid', 'amr', 'auth_time', 'client_id', 'scope']));
    for (const name of RESERVED_CLAIMS) {
      receiver.reply = () => ({ body: { claims: { tenant: 't', [name]: 'forged' } } });
      expect((await failureOf(tokenHook(receiver.url, [current]).claims(question))).reason).toBe('reserved_claim');
    }
  });

  it('takes claims up to the size bound and refuses one byte more', async () => {
    const padding = (bytes: number) => 'x'.repeat(bytes - JSON.stringify({ pad: '' }).length);
    receiver.reply = () => ({ body: { claims: { pad: padding(MAX_HOOK_CLAIMS_BYTES) } } });
    expect(JSON.stringify(await tokenHook(receiver.url, [current]).claims(question))).toHaveLength(MAX_HOOK_CLAIMS_BYTES);
    receiver.reply = () => ({ body: { claims: { pad: padding(MAX_HOOK_CLAIMS_BYTES + 1) } } });
    expect((await failureOf(tokenHook(receiver.url, [current]).claims(question))).reason).toBe('claims_too_large');
  });

  it('refuses an answer past its byte cap unread', async () => {
    receiver.reply = () => ({ body: { claims: {}, junk: 'y'.repeat(20_000) } });
    expect((await failureOf(tokenHook(receiver.url, [current]).claims(question))).reason).toBe('answer_too_large');
  });

  it('asks the sign-up hook and reads its verdict', async () => {
    const signupHook = createSignupHook(createHttpsHook({ url: receiver.url, secrets: [current], timeoutMs: 2_000 }), { now: clock });
    receiver.reply = (event) => ({ body: String(event.data.email).endsWith('@example.com') ? { allow: true } : { allow: false, code: 'domain_not_allowed' } });
    expect(await signupHook.ask({ email: 'ada@example.com', method: 'password' })).toEqual({ allow: true });
    expect(await signupHook.ask({ email: 'eve@elsewhere.test', method: 'federated', provider: 'google' })).toEqual({ allow: false, code: 'domain_not_allowed' });
    expect(receiver.received.at(-1)!.event).toMatchObject({ type: 'signup.requested', data: { email: 'eve@elsewhere.test', method: 'federated', provider: 'google' } });
    for (const body of [{ allow: false }, { allow: false, code: 'Not Allowed' }, { allow: false, code: 'x'.repeat(65) }, { allow: 'yes' }, {}]) {
      receiver.reply = () => ({ body });
      expect((await failureOf(signupHook.ask({ email: 'ada@example.com', method: 'password' }))).reason).toBe('malformed_answer');
    }
  });
});

describe('a Lambda hook', () => {
  /** A stand-in for Lambda's Invoke: records each event and answers what the test says. */
  function standIn(answer: (event: HookEvent, signal: AbortSignal) => Promise<{ statusCode?: number; functionError?: string; payload?: unknown }>) {
    const events: { functionName: string; event: HookEvent }[] = [];
    const invoker: LambdaInvoker = {
      async invoke({ functionName, payload, signal }) {
        const event = JSON.parse(new TextDecoder().decode(payload)) as HookEvent;
        events.push({ functionName, event });
        const { payload: body, ...rest } = await answer(event, signal);
        return { ...rest, ...(body !== undefined && { payload: new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body)) }) };
      },
    };
    return { invoker, events };
  }

  it('invokes the function with the event and reads its return value', async () => {
    const { invoker, events } = standIn(async () => ({ statusCode: 200, payload: { claims: { plan: 'pro' } } }));
    const hook = createTokenHook(createLambdaHook({ functionName: 'claims-fn', timeoutMs: 1_000, invoker }), { onFailure: 'refuse', now: clock });
    expect(await hook.claims({ ...question, trigger: 'refresh' })).toEqual({ plan: 'pro' });
    expect(events).toEqual([{ functionName: 'claims-fn', event: expect.objectContaining({ type: 'token.claims_requested', data: expect.objectContaining({ accountId: 'u-1', trigger: 'refresh' }) }) }]);
  });

  it('fails on a function error, a status other than 200, a bad payload, and at its timeout (aborting the invoke)', async () => {
    const call = (answer: Parameters<typeof standIn>[0], timeoutMs = 1_000) =>
      createTokenHook(createLambdaHook({ functionName: 'f', timeoutMs, invoker: standIn(answer).invoker }), { onFailure: 'refuse', now: clock }).claims(question);
    expect((await failureOf(call(async () => ({ statusCode: 200, functionError: 'Unhandled', payload: { errorMessage: 'x' } })))).reason).toBe('function_error');
    expect(await failureOf(call(async () => ({ statusCode: 202 })))).toMatchObject({ reason: 'status', status: 202 });
    expect((await failureOf(call(async () => ({ statusCode: 200, payload: 'not json' })))).reason).toBe('malformed_answer');
    let aborted = false;
    const slow = call(
      (_event, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => (aborted = true));
          setTimeout(() => resolve({ statusCode: 200, payload: { claims: {} } }), 1_000);
        }),
      100,
    );
    expect((await failureOf(slow)).reason).toBe('timeout');
    expect(aborted).toBe(true);
  });

  describe("through the SDK's client against the local Lambda API", () => {
    let api: LocalLambdaApi;
    beforeAll(async () => {
      api = await startLocalLambdaApi({
        functions: {
          'signup-rule': { memorySizeMB: 128, handler: async (event) => ((event as HookEvent).data.email === 'ok@example.com' ? { allow: true } : { allow: false, code: 'invite_required' }) },
          broken: { memorySizeMB: 128, handler: async () => Promise.reject(new Error('boom')) },
        },
      });
    });
    afterAll(async () => api?.stop());

    it('asks the function and reads its verdict; a thrown function is a failed hook', async () => {
      const invoker = createAwsLambdaInvoker({ endpoint: api.endpoint, region: 'local' }, 2_000);
      const hook = (functionName: string) => createSignupHook(createLambdaHook({ functionName, timeoutMs: 2_000, invoker }), { now: clock });
      expect(await hook('signup-rule').ask({ email: 'ok@example.com', method: 'password' })).toEqual({ allow: true });
      expect(await hook('signup-rule').ask({ email: 'no@example.com', method: 'migration' })).toEqual({ allow: false, code: 'invite_required' });
      expect((await failureOf(hook('broken').ask({ email: 'ok@example.com', method: 'password' }))).reason).toBe('function_error');
      expect(await failureOf(hook('missing').ask({ email: 'ok@example.com', method: 'password' }))).toMatchObject({ reason: 'status', status: 404 });
    });
  });
});

describe('the hooks settings', () => {
  const secret = newWebhookSecret();

  it('are off unless set, and default to refusing on failure with a short timeout', () => {
    expect(readHooksConfig({})).toEqual({});
    expect(readHooksConfig({ PASSLANE_TOKEN_HOOK_URL: 'https://hooks.example.com/claims', PASSLANE_TOKEN_HOOK_SECRETS: `${secret} ${newWebhookSecret()}` })).toEqual({
      token: { target: { kind: 'url', url: 'https://hooks.example.com/claims', secrets: [secret, expect.any(String)] }, timeoutMs: 2_000, onFailure: 'refuse' },
    });
    expect(readHooksConfig({ PASSLANE_SIGNUP_HOOK_FUNCTION: 'arn:aws:lambda:eu-west-1:123456789012:function:signup', PASSLANE_SIGNUP_HOOK_TIMEOUT_MS: '500' }).signup).toEqual({
      target: { kind: 'function', functionName: 'arn:aws:lambda:eu-west-1:123456789012:function:signup', connection: { region: 'eu-west-1' } },
      timeoutMs: 500,
    });
  });

  it('refuse what cannot work, naming the variable and never a secret', () => {
    const refusals: [Record<string, string>, string][] = [
      [{ PASSLANE_TOKEN_HOOK_URL: 'http://hooks.example.com/claims', PASSLANE_TOKEN_HOOK_SECRETS: secret }, 'PASSLANE_TOKEN_HOOK_URL'],
      [{ PASSLANE_TOKEN_HOOK_URL: 'https://hooks.example.com/claims' }, 'PASSLANE_TOKEN_HOOK_SECRETS'],
      [{ PASSLANE_TOKEN_HOOK_URL: 'https://hooks.example.com/claims', PASSLANE_TOKEN_HOOK_SECRETS: 'hunter2' }, 'PASSLANE_TOKEN_HOOK_SECRETS'],
      [{ PASSLANE_SIGNUP_HOOK_FUNCTION: 'signup-fn', PASSLANE_SIGNUP_HOOK_SECRETS: secret }, 'PASSLANE_SIGNUP_HOOK_SECRETS'],
      [{ PASSLANE_SIGNUP_HOOK_FUNCTION: 'not a function!' }, 'PASSLANE_SIGNUP_HOOK_FUNCTION'],
      [{ PASSLANE_SIGNUP_HOOK_FUNCTION: 'signup-fn', PASSLANE_SIGNUP_HOOK_URL: 'https://hooks.example.com/signup' }, 'PASSLANE_SIGNUP_HOOK_FUNCTION'],
      [{ PASSLANE_SIGNUP_HOOK_URL: 'hooks.example.com/signup', PASSLANE_SIGNUP_HOOK_SECRETS: secret }, 'PASSLANE_SIGNUP_HOOK_URL'],
      [{ PASSLANE_TOKEN_HOOK_SECRETS: secret }, 'PASSLANE_TOKEN_HOOK_SECRETS'],
      [{ PASSLANE_TOKEN_HOOK_ON_FAILURE: 'refuse' }, 'PASSLANE_TOKEN_HOOK_ON_FAILURE'],
      [{ PASSLANE_TOKEN_HOOK_FUNCTION: 'claims-fn', PASSLANE_TOKEN_HOOK_ON_FAILURE: 'ignore' }, 'PASSLANE_TOKEN_HOOK_ON_FAILURE'],
      [{ PASSLANE_TOKEN_HOOK_FUNCTION: 'claims-fn', PASSLANE_TOKEN_HOOK_TIMEOUT_MS: '60000' }, 'PASSLANE_TOKEN_HOOK_TIMEOUT_MS'],
    ];
    for (const [env, variable] of refusals) {
      let error: unknown;
      try {
        readHooksConfig(env);
      } catch (caught) {
        error = caught;
      }
      expect(error, JSON.stringify(env)).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toContain(variable);
      expect((error as ConfigError).message).not.toContain(secret);
      expect((error as ConfigError).message).not.toContain('hunter2');
    }
  });
});
