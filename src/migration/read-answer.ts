/**
 * The old system's answer, the same JSON over HTTPS and from Lambda (README.md here):
 * `{"valid": true|false, "emailVerified"?: true|false}`. Other fields are ignored, so the old
 * system may add its own; anything else is no answer (MigrationUnavailableError
 * 'malformed_answer'), never a "no": a broken endpoint must not look like wrong passwords.
 */
import { MigrationUnavailableError, type MigrationAnswer } from '../use-cases/migration-source.js';

/** Far above `{"valid":true,"emailVerified":true}`: a misdirected endpoint cannot fill memory. */
export const MAX_ANSWER_BYTES = 4096;

export function readMigrationAnswer(text: string): MigrationAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // No cause: the parser's message quotes the body, and the body is the old system's.
    throw new MigrationUnavailableError('malformed_answer');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new MigrationUnavailableError('malformed_answer');
  const { valid, emailVerified } = parsed as { valid?: unknown; emailVerified?: unknown };
  if (typeof valid !== 'boolean') throw new MigrationUnavailableError('malformed_answer');
  if (emailVerified !== undefined && typeof emailVerified !== 'boolean') throw new MigrationUnavailableError('malformed_answer');
  if (!valid) return { valid: false };
  return emailVerified === undefined ? { valid: true } : { valid: true, emailVerified };
}
