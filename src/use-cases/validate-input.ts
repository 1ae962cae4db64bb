import { InvalidRequestError } from './errors.js';

/** RFC 5321 limits; a pragmatic shape check, since only a confirmation mail can prove an address. */
const MAX_EMAIL_LENGTH = 254;
const MAX_LOCAL_PART_LENGTH = 64;
const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Trimmed and lower-cased, so one mailbox is one account however it is typed. */
export function normaliseEmail(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidRequestError('email must be a string', 'email');
  const email = value.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  if (email.length > MAX_EMAIL_LENGTH || at > MAX_LOCAL_PART_LENGTH || !EMAIL_SHAPE.test(email)) {
    throw new InvalidRequestError('email is not a valid address', 'email');
  }
  return email;
}

export function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

export function requireString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string') throw new InvalidRequestError(`${field} must be a string`, field);
  return value;
}
