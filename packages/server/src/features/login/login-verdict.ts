import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { AuditEvent } from '../../accounts/audit-events.js';
import type { MfaMethod } from '../../accounts/errors.js';
import type { UserRecord } from '../../storage/account-store.js';
import type { LoginState, LoginTarget } from '../../storage/login-guard-store.js';
import type { RefreshResponse } from '../sessions/refresh-session.js';
import type { HeldAttempt } from './login-attempt.js';

/** The client of a login: where it comes from, what it is, and the device tokens it holds (known-device.ts). */
export interface LoginClient {
  sourceIp?: string;
  /** The User-Agent header: its family is what GET /sessions shows of the session. */
  userAgent?: string;
  /**
   * Device tokens the client holds (the body's `deviceToken`, the `__Host-` cookies): one of
   * this account's makes the login count against that device only (known-device.ts).
   */
  deviceTokens?: readonly string[];
}

/**
 * What a strategy proved (the password, a second factor, a passkey; next, a federated identity):
 * this account, as read with its counters, proven by this means. The strategy reserved the
 * attempt before it checked anything (`held`, login-attempt.ts); the shared step (finish-login.ts)
 * gives it back as the login ends.
 */
export interface LoginVerdict {
  user: UserRecord;
  target: LoginTarget;
  state: LoginState;
  held: HeldAttempt;
  /** The password hash the login stands on: a password change since voids it ('overtaken'). */
  verifiedHash: string;
  /**
   * The session's `amr` (RFC 8176); absent for a password alone (`pwd`). With `mfa` in it the
   * proof already carries a second factor, so the account's factors ask for no other.
   */
  amr?: readonly string[];
  /** The password's upgrade to current parameters (only a verified password can be rehashed), run after the gates. */
  rehash?: () => Promise<{ newHash: string } | 'skipped' | 'overtaken'>;
  /** The strategy's own success events, audited before `auth.login_succeeded`. */
  succeeded?: readonly AuditEvent[];
  /** After `auth.login_succeeded`, before the answer: what the strategy does of a success (a weak password counted, a recovery code's mail). */
  afterSuccess?: () => Promise<void>;
}

/** A session's first pair (its refresh token is spent by POST /token: sessions/README.md), and the device's token. */
export interface LoginResponse extends RefreshResponse {
  /** Kept by the client and presented at its next logins (packages/server/src/features/sessions/device-token.ts). */
  deviceToken: string;
  deviceExpiresIn: number;
}

/** The right password of an account with a second factor: POST /login/mfa finishes the login with `mfaToken` and one of `methods`. */
export interface MfaRequiredResult {
  kind: 'mfa_required';
  mfaToken: string;
  methods: readonly MfaMethod[];
  /** With `webauthn` among the methods: the request options for the assertion. */
  webauthn?: PublicKeyCredentialRequestOptionsJSON;
}

/** How a login ends when it succeeds: a session, or a second factor due. Failures are typed errors (accounts/errors.ts). */
export type LoginResult = ({ kind: 'session' } & LoginResponse) | MfaRequiredResult;
