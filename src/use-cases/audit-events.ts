/**
 * Security events, written as structured logs (and counted as metrics) by the host. They carry
 * userIds and short email fingerprints, never emails, passwords, hashes or tokens.
 */
export type AuditEvent =
  | { type: 'auth.registered'; userId: string }
  | { type: 'auth.login_succeeded'; userId: string }
  | { type: 'auth.login_failed'; reason: 'unknown_account' | 'wrong_password' | 'unverifiable_record'; userId?: string; emailFingerprint: string }
  | { type: 'auth.password_rehashed'; userId: string; from: string; to: string }
  | { type: 'auth.password_rehash_skipped'; userId: string; reason: 'hash_changed' | 'storage_unavailable' }
  | { type: 'auth.password_changed'; userId: string }
  | { type: 'auth.password_change_failed'; userId: string; reason: 'wrong_password' | 'token_predates_password_change' }
  | { type: 'auth.rate_limited'; scope: 'account' | 'account_source' | 'source' | 'session' | 'refresh_source'; emailFingerprint?: string }
  | { type: 'auth.session_refreshed'; userId: string; sessionId: string; grace: boolean }
  | { type: 'auth.refresh_failed'; reason: 'malformed' | 'unknown_session' | 'expired' | 'mismatch' }
  | { type: 'auth.refresh_token_reused'; userId: string; sessionId: string }
  | { type: 'auth.sessions_ended'; userId: string; count: number; reason: SessionEndReason }
  | { type: 'auth.stored_hash_rejected'; userId: string; code: string };

/** Why sessions ended: a sign-out (of this, the others or all), one ended from the list, a password change, too many. */
export type SessionEndReason = 'logout' | 'logout_others' | 'logout_global' | 'deleted' | 'password_changed' | 'evicted' | 'reused';

export type AuditEventType = AuditEvent['type'];
