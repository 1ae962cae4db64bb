/**
 * The old system's answers, the same JSON over HTTPS and from Lambda (README.md here): to a
 * password `{"valid": true|false, "emailVerified"?: true|false}`, to "do you hold this email?"
 * `{"exists": true|false}`. Other fields are ignored, so the old system may add its own;
 * anything else is no answer (MigrationUnavailableError 'malformed_answer'), never a "no": a
 * broken endpoint must not look like wrong passwords or free emails.
 */
import { MigrationUnavailableError, type MigrationAnswer } from './migration-source.js';

/** Far above `{"valid":true,"emailVerified":true}`: a misdirected endpoint cannot fill memory. */
export const MAX_ANSWER_BYTES = 4096;

export function readMigrationAnswer(text: string): MigrationAnswer {
  const { valid, emailVerified } = readObject(text);
  if (typeof valid !== 'boolean') throw new MigrationUnavailableError('malformed_answer');
  if (emailVerified !== undefined && typeof emailVerified !== 'boolean') throw new MigrationUnavailableError('malformed_answer');
  if (!valid) return { valid: false };
  return emailVerified === undefined ? { valid: true } : { valid: true, emailVerified };
}

export function readExistsAnswer(text: string): boolean {
  const { exists } = readObject(text);
  if (typeof exists !== 'boolean') throw new MigrationUnavailableError('malformed_answer');
  return exists;
}

function readObject(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // No cause: the parser's message quotes the body, and the body is the old system's.
    throw new MigrationUnavailableError('malformed_answer');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new MigrationUnavailableError('malformed_answer');
  return parsed as Record<string, unknown>;
}
