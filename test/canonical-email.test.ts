/**
 * The one canonical form of an email (packages/server/src/accounts/EMAILS.md): what every use-case, the import
 * and the lazy migration key accounts by. It must be the address mail is delivered to, and an
 * ASCII address must keep the key it has had since the first deployment.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { transportAddress } from '../packages/server/src/mail/mime.js';
import { canonicalEmail } from '../packages/server/src/accounts/canonical-email.js';
import { InvalidRequestError } from '../packages/server/src/accounts/errors.js';
import { createEmailFingerprint } from '../packages/server/src/accounts/fingerprint.js';

const refusal = (input: unknown) => {
  try {
    canonicalEmail(input);
  } catch (error) {
    return error as InvalidRequestError;
  }
  return expect.fail(`expected ${JSON.stringify(input)} to be refused`);
};

describe('canonical emails', () => {
  it('keep the key and fingerprint of every ASCII address as trim().toLowerCase() made them', () => {
    const key = new Uint8Array(32).fill(3);
    const fingerprint = createEmailFingerprint(key);
    const typed = [
      'ada@example.com',
      '  Ada.Lovelace+Tag@Example.COM\t',
      "o'neil_x-y=z@mail.sub-domain.example.co.uk",
      'USER-0-ABC@EXAMPLE.COM',
      'a@b.io',
      'x@1.2.3.4',
      'x!#$&*{}~@host_name.example',
    ];
    for (const email of typed) {
      const before = email.trim().toLowerCase();
      expect(canonicalEmail(email)).toBe(before);
      expect(fingerprint(canonicalEmail(email))).toBe(createHmac('sha256', key).update(before).digest('hex').slice(0, 16));
    }
  });

  it.each([
    ['full-width letters in the domain', 'ada@ｅｘａｍｐｌｅ.com', 'ada@example.com'],
    ['full-width letters in the local part', 'ａｄａ@example.com', 'ada@example.com'],
    ['a full-width at sign', 'ada＠example.com', 'ada@example.com'],
    ['a full-width full stop', 'ada@example．com', 'ada@example.com'],
    ['an ideographic full stop', 'ada@example。com', 'ada@example.com'],
    ['a half-width ideographic full stop', 'ada@example｡com', 'ada@example.com'],
    ['a Unicode domain', 'ada@bücher.example', 'ada@xn--bcher-kva.example'],
    ['an upper-case Unicode domain', 'Ada@BÜCHER.Example', 'ada@xn--bcher-kva.example'],
    ['a decomposed accent', 'ada@bu\u0308cher.example', 'ada@xn--bcher-kva.example'],
    ['an upper-case A-label', 'ada@XN--BCHER-KVA.EXAMPLE', 'ada@xn--bcher-kva.example'],
    ['a sharp s (kept, as IDNA 2008 does)', 'ada@straße.de', 'ada@xn--strae-oqa.de'],
    ['a non-ASCII local part, composed and lower-cased', 'JOSE\u0301@example.com', 'josé@example.com'],
  ])('maps %s to one form', (_name, typed, canonical) => {
    expect(canonicalEmail(typed)).toBe(canonical);
    // Idempotent, and already what the mail layer sends to.
    expect(canonicalEmail(canonical)).toBe(canonical);
    expect(transportAddress(canonical)).toBe(canonical);
  });

  it.each([
    ['a soft hyphen', 'ada@exa\u00admple.com'],
    ['a zero-width space', 'ada@exa\u200bmple.com'],
    ['a zero-width joiner', 'ada@exa\u200dmple.com'],
    ['a zero-width non-joiner', 'a\u200cda@example.com'],
    ['a word joiner', 'ada@example\u2060.com'],
    ['a variation selector', 'ada\ufe0f@example.com'],
    ['a Hangul filler', 'ada@exa\uffa0mple.com'],
    ['a control character', 'a\u0001da@example.com'],
    ['a tab inside', 'ada@exa\tmple.com'],
    ['a lone surrogate', 'ada\ud800@example.com'],
    ['an unassigned code point', 'ada@exa\u0378mple.com'],
  ])('refuses %s anywhere, with a 400 on `email`', (_name, typed) => {
    const error = refusal(typed);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ code: 'invalid_request', field: 'email', message: 'email contains an invisible, control or unassigned character' });
  });

  it.each([
    ['a port', 'ada@example.com:25'],
    ['a percent escape', 'ada@gm%61il.com'],
    ['a path', 'ada@evil.example/example.com'],
    ['a backslash', 'ada@evil.example\\example.com'],
    ['a query', 'ada@evil.example?example.com'],
    ['a numeric host the parser rewrites', 'ada@0x7f.1'],
    ['invalid punycode', 'ada@xn--zz.example'],
    ['invalid punycode beside a Unicode label', 'ada@bücher.xn--zz.example'],
    ['an address literal', 'ada@[192.0.2.1]'],
    ['a trailing dot', 'ada@example.com.'],
    ['a trailing ideographic full stop', 'ada@example.com。'],
    ['no domain', 'ada@'],
    ['no at sign', 'ada.example.com'],
    ['a single-label domain', 'ada@bücher'],
    ['an over-long local part', `${'a'.repeat(65)}@example.com`],
    ['an address longer than 254 once canonical', `ada@${Array.from({ length: 4 }, () => 'ü'.repeat(55)).join('.')}.example`],
    ['an over-long input', `${'ａ'.repeat(1100)}@example.com`],
  ])('refuses a domain or shape with %s', (_name, typed) => {
    expect(refusal(typed)).toMatchObject({ code: 'invalid_request', field: 'email', message: 'email is not a valid address' });
  });

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 42, ['ada@example.com'], { email: 'ada@example.com' }]) {
      expect(refusal(value)).toMatchObject({ code: 'invalid_request', field: 'email', message: 'email must be a string' });
    }
  });
});
