/**
 * An RFC 5322 / MIME message, as SES would build it from the same parts: multipart/alternative
 * with a text and an HTML part, both UTF-8 in quoted-printable (mostly readable in an editor,
 * unlike base64), and RFC 2047 encoded words where a header holds more than plain ASCII. CRLF line
 * ends throughout. Runtime-neutral (TextEncoder, btoa).
 */
import type { MailAddress } from './settings.js';

export interface MimeMessage {
  from: MailAddress;
  to: string;
  subject: string;
  text: string;
  html: string;
  date: Date;
  /** Without the angle brackets: `<random>@<sender's domain>`. */
  messageId: string;
  /** Any string QP output cannot contain: one with `=_` (QP writes `=` only before hex digits or a line end). */
  boundary: string;
}

export function buildMimeMessage(message: MimeMessage): string {
  for (const value of [message.to, message.subject, message.from.address, message.from.name ?? '', message.messageId]) {
    // Header injection: a line break would end the header and start one of the caller's choosing.
    if (/[\r\n]/.test(value)) throw new TypeError('a mail header value holds a line break');
  }
  const headers = [
    `From: ${formatMailbox(message.from)}`,
    `To: ${message.to}`,
    `Subject: ${encodeHeaderText(message.subject)}`,
    `Date: ${formatDate(message.date)}`,
    `Message-ID: <${message.messageId}>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative;\r\n boundary="${message.boundary}"`,
  ];
  const part = (type: string, body: string) =>
    [`--${message.boundary}`, `Content-Type: ${type}; charset=utf-8`, 'Content-Transfer-Encoding: quoted-printable', '', quotedPrintable(body)].join('\r\n');
  return [...headers, '', part('text/plain', message.text), part('text/html', message.html), `--${message.boundary}--`, ''].join('\r\n');
}

/**
 * `Name <address>` with the name quoted when it holds specials, or encoded when it is not ASCII;
 * the bare address without a name. SES wants the same form in FromEmailAddress.
 */
export function formatMailbox({ name, address }: MailAddress): string {
  if (name === undefined) return address;
  // As few words as possible: a split inside a display name is read back with a space by some decoders (Python's).
  if (!isPrintableAscii(name)) return `${encodedWords(name, 45).join(' ')} <${address}>`;
  return /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~ -]*$/.test(name) ? `${name} <${address}>` : `"${name.replace(/["\\]/g, '\\$&')}" <${address}>`;
}

/** Plain when short printable ASCII; else RFC 2047 encoded words, one per folded line. */
export function encodeHeaderText(value: string): string {
  return isPrintableAscii(value) && value.length <= 66 ? value : encodedWords(value, 36).join('\r\n ');
}

/**
 * `=?UTF-8?B?...?=` words (RFC 2047) of at most `maxBytes` of UTF-8: 45 make the longest word
 * allowed (75 characters), 36 keep a `Subject: ` line with one within 76. Split between
 * characters, never inside one: a decoder decodes each word on its own.
 */
function encodedWords(value: string, maxBytes: number): string[] {
  const words: string[] = [];
  let chunk: number[] = [];
  for (const char of value) {
    const bytes = [...new TextEncoder().encode(char)];
    if (chunk.length + bytes.length > maxBytes) {
      words.push(encodedWord(chunk));
      chunk = [];
    }
    chunk.push(...bytes);
  }
  if (chunk.length > 0 || words.length === 0) words.push(encodedWord(chunk));
  return words;
}

function encodedWord(bytes: number[]): string {
  return `=?UTF-8?B?${btoa(String.fromCharCode(...bytes))}?=`;
}

/**
 * RFC 2045 quoted-printable of the UTF-8 bytes: lines at most 76 characters (soft breaks `=`),
 * `=` and non-ASCII as `=XX`, a space or tab before a line end encoded so it survives transport.
 */
export function quotedPrintable(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const bytes = new TextEncoder().encode(line);
      let out = '';
      let current = '';
      bytes.forEach((byte, index) => {
        const last = index === bytes.length - 1;
        const literal = (byte >= 33 && byte <= 126 && byte !== 61) || ((byte === 32 || byte === 9) && !last);
        const token = literal ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
        if (current.length + token.length > 75) {
          out += `${current}=\r\n`;
          current = '';
        }
        current += token;
      });
      return out + current;
    })
    .join('\r\n');
}

/** RFC 5322 date-time in UTC: `Tue, 05 May 2026 10:22:33 +0000`. */
function formatDate(date: Date): string {
  return date.toUTCString().replace(/GMT$/, '+0000');
}

function isPrintableAscii(value: string): boolean {
  return /^[\x20-\x7e]*$/.test(value);
}

/**
 * The address as SMTP carries it: the domain in ASCII (punycode, lower case; URL does the IDNA
 * mapping in every runtime). SES takes no UTF-8 domain. Throws TypeError on anything that is
 * not one bare address, so no header or list can be smuggled in.
 */
export function transportAddress(address: string): string {
  const match = /^([^\s@<>,;"]+)@([^\s@<>,;"/\\?#:[\]]+)$/.exec(address);
  if (match === null) throw new TypeError('not a single mail address');
  return `${match[1]}@${new URL(`http://${match[2]}`).hostname}`;
}
