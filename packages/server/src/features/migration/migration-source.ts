/**
 * The old system, asked at login about an email passlane has no account for, and at
 * registration whether it holds the email (lazy migration, packages/server/src/features/migration/README.md). The
 * use-cases know only this interface; src/migration holds the HTTPS and Lambda adapters.
 */
import type { MigrationUnavailableReason } from '../../accounts/audit-events.js';

/** The old system's verdict on one email and password. */
export type MigrationAnswer = { valid: false } | { valid: true; emailVerified?: boolean };

export interface MigrationSource {
  /**
   * One question, asked once (no retries: each call is a password guess against the old
   * system). `email` is canonical (canonical-email.ts); `password` is exactly as typed.
   * Throws MigrationUnavailableError when there is no trustworthy answer in time.
   */
  check(email: string, password: string): Promise<MigrationAnswer>;
  /**
   * Whether the old system holds an account for this email, asked at registration: an email
   * still waiting there is taken, so nobody else can register it first. Throws
   * MigrationUnavailableError like `check`.
   */
  holds(email: string): Promise<boolean>;
}

/**
 * The old system could not answer: login answers `temporarily_unavailable`, creates no account and
 * counts no failure. The message names the reason and, for `status`, the status; never the
 * email, the password or the answer's body.
 */
export class MigrationUnavailableError extends Error {
  readonly code = 'ERR_MIGRATION_UNAVAILABLE';
  /** The HTTP or Lambda status, for `status`. */
  readonly status?: number;

  constructor(
    readonly reason: MigrationUnavailableReason,
    options?: { cause?: unknown; status?: number },
  ) {
    super(`the old system gave no answer (${reason}${options?.status === undefined ? '' : ` ${options.status}`})`, options);
    this.name = 'MigrationUnavailableError';
    if (options?.status !== undefined) this.status = options.status;
  }
}
