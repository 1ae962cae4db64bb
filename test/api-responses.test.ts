import { describe, expect, it } from 'vitest';
import { errorResponse, jsonResponse, noContent, toWebResponse } from '../packages/server/src/api/responses.js';
import { TextResponse } from '../packages/server/src/runtimes/lambda/text-response.js';

describe('route answers', () => {
  it('are data: status, no-store headers and the JSON text', () => {
    expect(jsonResponse(201, { userId: 'u1' })).toEqual({
      status: 201,
      headers: { 'cache-control': 'no-store', 'content-type': 'application/json' },
      body: '{"userId":"u1"}',
    });
    expect(errorResponse(429, 'rate_limited', 'slow down', { 'retry-after': '7' })).toMatchObject({
      status: 429,
      headers: { 'retry-after': '7' },
      body: '{"error":{"code":"rate_limited","message":"slow down"}}',
    });
    expect(noContent()).toEqual({ status: 204, headers: { 'cache-control': 'no-store' } });
  });

  it('become web Responses with the same status, headers and body', async () => {
    const response = toWebResponse(jsonResponse(200, { a: 1 }, { 'cache-control': 'public, max-age=60' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    expect(await response.json()).toEqual({ a: 1 });
    expect(toWebResponse(noContent()).body).toBeNull();
  });
});

describe('TextResponse (the Lambda host)', () => {
  it('answers text, JSON and bytes from the string it holds, as often as asked, with no stream', async () => {
    const response = new TextResponse(jsonResponse(401, { error: { code: 'invalid_credentials' } }));
    expect(response).toBeInstanceOf(Response);
    expect(response.body).toBeNull();
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe('{"error":{"code":"invalid_credentials"}}');
    expect(await response.json()).toEqual({ error: { code: 'invalid_credentials' } });
    expect(new TextDecoder().decode(await response.arrayBuffer())).toBe('{"error":{"code":"invalid_credentials"}}');
  });

  it('keeps its text through clone() and answers an empty body for 204', async () => {
    const original = new TextResponse(jsonResponse(200, { ok: true }, { 'x-extra': 'yes' }));
    const copy = original.clone();
    expect(copy).toBeInstanceOf(TextResponse);
    expect(copy.headers.get('x-extra')).toBe('yes');
    expect(await copy.text()).toBe('{"ok":true}');
    expect(await new TextResponse(noContent()).text()).toBe('');
  });
});
