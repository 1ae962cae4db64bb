/**
 * RFC 6749 §5.2's error body: a route whose `errorBody` is `oauth` (POST /token) answers every
 * error, its own and the toolkit's on its path, as `{"error","error_description"}` with the error
 * table's status and headers, `Cache-Control: no-store` and `Pragma: no-cache`; the table's
 * `oauth` column names the code. Other routes keep the API's body. Through createApi, as every
 * host runs it.
 */
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import {
  InvalidGrantError,
  InvalidRequestError,
  PasswordRejectedError,
  RateLimitedError,
  RefreshTokenReusedError,
  TemporarilyUnavailableError,
  UnsupportedGrantTypeError,
} from '../packages/server/src/accounts/errors.js';
import type { ApiLog } from '../packages/server/src/api/api-host.js';
import { createApi } from '../packages/server/src/api/create-api.js';
import { ERROR_TABLE, OAUTH_ERROR_CODES, type ErrorAnswer } from '../packages/server/src/api/error-table.js';
import { HttpError } from '../packages/server/src/api/http-error.js';
import { mapError, toErrorResponse } from '../packages/server/src/api/map-error.js';
import { jsonResponse } from '../packages/server/src/api/responses.js';
import { defineRoute, type AnyRoute } from '../packages/server/src/api/route.js';
import { tokenRoute } from '../packages/server/src/features/sessions/token-route.js';
import { spec } from './support/openapi.js';

const NO_CACHE = { 'cache-control': 'no-store', pragma: 'no-cache', 'content-type': 'application/json' };

/** The OAuth answer of an error, as a route with the OAuth body gives it. */
function oauthAnswer(error: unknown) {
  const { status, headers, body } = toErrorResponse(mapError(error, 'oauth'), 'oauth');
  return { status, headers, body: JSON.parse(body ?? '{}') as unknown };
}

describe('the OAuth error body, by the table', () => {
  it.each([
    [new InvalidRequestError('refresh_token must be a non-empty string', 'refresh_token'), 400, 'invalid_request', {}],
    [new HttpError('invalid_json', 'request body is not valid JSON'), 400, 'invalid_request', {}],
    [new UnsupportedGrantTypeError(), 400, 'unsupported_grant_type', {}],
    [new InvalidGrantError(), 400, 'invalid_grant', {}],
    [new RefreshTokenReusedError(), 400, 'invalid_grant', {}],
    [new HttpError('method_not_allowed', 'use POST', { allow: 'POST' }), 405, 'invalid_request', { allow: 'POST' }],
    [new HttpError('payload_too_large', 'request body must be at most 8192 bytes'), 413, 'invalid_request', {}],
    [new HttpError('unsupported_media_type', 'Content-Type must be application/json'), 415, 'invalid_request', {}],
    [new RateLimitedError(29.2), 429, 'temporarily_unavailable', { 'retry-after': '30' }],
    [new TemporarilyUnavailableError(0.2), 503, 'temporarily_unavailable', { 'retry-after': '1' }],
  ] as const)('answers %s flat, with its status and headers and no-cache', (error, status, code, headers) => {
    expect(oauthAnswer(error)).toEqual({
      status,
      headers: { ...NO_CACHE, ...headers },
      body: { error: code, error_description: ERROR_TABLE[error.code].status >= 500 ? expect.any(String) : error.message },
    });
  });

  it('answers the reuse of a refresh token as invalid_grant, saying what happened in the description only', () => {
    expect(oauthAnswer(new RefreshTokenReusedError()).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token was already used; the session has been ended',
    });
  });

  it('answers anything else, and a code with no OAuth meaning, as server_error with the fixed description', () => {
    const internal = { status: 500, headers: NO_CACHE, body: { error: 'server_error', error_description: 'internal error' } };
    expect(oauthAnswer(new Error('user@example.com not found'))).toEqual(internal);
    // password_rejected has no OAuth code: on an OAuth route it can only be a bug, so nothing of it is answered.
    expect(oauthAnswer(new PasswordRejectedError('common', 'choose a less common password'))).toEqual(internal);
  });

  it('keeps the description to the characters RFC 6749 §5.2 allows', () => {
    const quoted = new HttpError('invalid_request', 'réfresh_"token"\\\n is given more than once');
    expect(oauthAnswer(quoted).body).toEqual({ error: 'invalid_request', error_description: 'r?fresh_?token??? is given more than once' });
  });

  it('names as OAuth codes exactly those of the table, which openapi.yaml\'s OAuthError lists', () => {
    const used = new Set(Object.values(ERROR_TABLE as Record<string, ErrorAnswer>).flatMap((answer) => (answer.oauth === undefined ? [] : [answer.oauth])));
    expect(used).toEqual(new Set(OAUTH_ERROR_CODES));
    expect(new Set(spec.components.schemas.OAuthError.properties.error.enum)).toEqual(used);
  });
});

describe('a route with the OAuth error body, through createApi', () => {
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const log: ApiLog = {
    info: (message, fields) => void lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => void lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => void lines.push({ level: 'error', message, fields }),
    safeError: (error) => (error instanceof Error ? error.name : typeof error),
  };
  // Its own route beside POST /token, so a throwing handler and an API-bodied neighbour can be shown.
  const grant = defineRoute<object, v.ObjectSchema<{ code: v.StringSchema<undefined> }, undefined>>({
    name: 'grant',
    method: 'POST',
    path: '/grant',
    body: { name: 'Grant', schema: v.object({ code: v.string() }), form: true },
    errorBody: 'oauth',
    doc: { operationId: 'grant', summary: 'test', answers: {} },
    handle: async ({ body }) => {
      if (body.code === 'reused') throw new RefreshTokenReusedError();
      if (body.code === 'boom') throw new Error('boom');
      return jsonResponse(200, { ok: true });
    },
  });
  const plain = defineRoute<object>({
    name: 'plain',
    method: 'POST',
    path: '/plain',
    doc: { operationId: 'plain', summary: 'test', answers: {} },
    handle: async () => {
      throw new InvalidGrantError();
    },
  });
  // No token route's service is reached: every request below is refused before its handler.
  const app = createApi([tokenRoute, grant, plain] as AnyRoute<object>[], {
    services: () => ({ refresh: () => Promise.reject(new Error('not reached')) }),
    origin: () => ({ sourceIp: '192.0.2.1', requestId: 'req-1' }),
    log,
  });
  const send = async (method: string, path: string, init: { type?: string; body?: string } = {}) => {
    const response = await app.fetch(
      new Request(`http://api.test${path}`, { method, ...(init.type && { headers: { 'content-type': init.type } }), ...(init.body !== undefined && { body: init.body }) }),
    );
    return { status: response.status, pragma: response.headers.get('pragma'), allow: response.headers.get('allow'), body: (await response.json()) as unknown };
  };
  const form = 'application/x-www-form-urlencoded';

  it('answers the toolkit\'s refusals on POST /token in the OAuth body, with Pragma', async () => {
    expect(await send('GET', '/token')).toEqual({ status: 405, pragma: 'no-cache', allow: 'POST', body: { error: 'invalid_request', error_description: 'use POST' } });
    expect(await send('POST', '/token', { type: 'text/plain', body: 'x' })).toMatchObject({ status: 415, pragma: 'no-cache', body: { error: 'invalid_request' } });
    expect(await send('POST', '/token', { type: form, body: 'x'.repeat(9000) })).toMatchObject({ status: 413, pragma: 'no-cache', body: { error: 'invalid_request' } });
    expect(await send('POST', '/token', { type: 'application/json', body: '{' })).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'request body is not valid JSON' } });
    expect(await send('POST', '/token', { type: form, body: 'grant_type=password' })).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    expect(await send('POST', '/token', { type: form, body: 'grant_type=refresh_token' })).toMatchObject({
      status: 400,
      pragma: 'no-cache',
      body: { error: 'invalid_request', error_description: 'refresh_token must be a non-empty string' },
    });
  });

  it('answers its handler\'s errors in the OAuth body, logged as before', async () => {
    lines.length = 0;
    expect(await send('POST', '/grant', { type: form, body: 'code=reused' })).toMatchObject({ status: 400, pragma: 'no-cache', body: { error: 'invalid_grant' } });
    expect(await send('POST', '/grant', { type: form, body: 'code=boom' })).toEqual({
      status: 500,
      pragma: 'no-cache',
      allow: null,
      body: { error: 'server_error', error_description: 'internal error' },
    });
    expect(lines).toEqual([
      { level: 'info', message: 'request rejected', fields: { route: '/grant', requestId: 'req-1', status: 400, code: 'refresh_token_reused' } },
      { level: 'error', message: 'unhandled error', fields: { route: '/grant', requestId: 'req-1', error: 'Error' } },
    ]);
  });

  it('leaves the other routes, and unknown paths, with the API\'s error body', async () => {
    expect(await send('POST', '/plain')).toEqual({
      status: 400,
      pragma: null,
      allow: null,
      body: { error: { code: 'invalid_grant', message: 'the refresh token is invalid, expired or revoked' } },
    });
    expect(await send('GET', '/plain')).toMatchObject({ status: 405, pragma: null, body: { error: { code: 'method_not_allowed' } } });
    expect(await send('GET', '/nope')).toMatchObject({ status: 404, pragma: null, body: { error: { code: 'not_found' } } });
  });
});
