import { describe, expect, it } from 'vitest';
import { readJsonBody } from '../packages/server/src/api/read-json-body.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const bodiless = (headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  new Request('https://api.example.com/login', { method: 'POST', headers });

describe('readJsonBody with a body the host holds (a Lambda event)', () => {
  it('reads the held bytes, not the Request (which has none)', async () => {
    await expect(readJsonBody(bodiless(), { held: bytes('{"email":"a@example.com"}') })).resolves.toEqual({ email: 'a@example.com' });
  });

  it('applies the same checks in the same order: content type, the held size, then UTF-8 and JSON', async () => {
    const big = bytes(JSON.stringify({ padding: 'x'.repeat(9000) }));
    await expect(readJsonBody(bodiless({ 'content-type': 'text/plain' }), { held: big })).rejects.toMatchObject({ code: 'unsupported_media_type' });
    // No Content-Length to go by: the held bytes are measured.
    await expect(readJsonBody(bodiless(), { held: big })).rejects.toMatchObject({ code: 'payload_too_large' });
    await expect(readJsonBody(bodiless(), { held: new Uint8Array([0x7b, 0xff, 0x7d]) })).rejects.toMatchObject({ code: 'invalid_json' });
    await expect(readJsonBody(bodiless(), { held: bytes('{"password":"hunter2"') })).rejects.toMatchObject({
      code: 'invalid_json',
      message: 'request body is not valid JSON',
    });
  });

  it('reads a held form body as a route that accepts forms does', async () => {
    const form = bodiless({ 'content-type': 'application/x-www-form-urlencoded' });
    await expect(readJsonBody(form, { form: true, held: bytes('grant_type=refresh_token&refresh_token=abc') })).resolves.toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'abc',
    });
  });

  it('reads the Request when nothing is held', async () => {
    const request = new Request('https://api.example.com/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    await expect(readJsonBody(request)).resolves.toEqual({ a: 1 });
  });
});
