/**
 * Second factors (README.md here): the keys that seal TOTP secrets, the issuer authenticator
 * apps show, and the bounds. Read by config/mfa-config.ts.
 */

/** One key of PASSLANE_MFA_KEYS: an id stored beside every secret it seals, and 32 bytes of AES-256-GCM key. */
export interface MfaKey {
  id: string;
  key: Uint8Array<ArrayBuffer>;
}

export interface MfaConfig {
  /** The first seals, all open (rotation); none: a local key file (development only). */
  keys?: readonly MfaKey[];
  /** Where the local key file goes (npm start's data directory). */
  localKeyDir: string;
  onLambda: boolean;
  /** The `issuer` of the otpauth URI: the name authenticator apps show (PASSLANE_MFA_ISSUER). */
  issuer: string;
  /** Bearer routes (but the MFA ones) and the authorizer refuse tokens without `mfa` in `amr` (PASSLANE_REQUIRE_MFA). */
  requireMfa: boolean;
}

/** Fixed bounds, written down in the security doc (SECURITY.md, "Second factors"). */
export const MFA_LIMITS = {
  /** How long the password step's MFA token lives. */
  loginTokenSeconds: 300,
  /** Wrong codes that kill an MFA token. */
  wrongCodesPerToken: 5,
  /** A login this recent may enrol, regenerate and remove factors. */
  recentAuthSeconds: 300,
  /** How long an enrolment waits for its confirm. */
  pendingSeconds: 600,
  recoveryCodes: 10,
  /**
   * Attempts at removing TOTP (DELETE /mfa/totp, which checks a code) per account per window:
   * every attempt counts, the right one too, so parallel guesses cannot slip past a read of the
   * count; an owner removes a factor once.
   */
  removalAttempts: 5,
  removalWindowSeconds: 900,
  /**
   * Wrong codes or assertions of one kind of factor, over its life, before it is suspended
   * (NIST SP 800-63B-4 §3.2.2: at most 100 consecutive failures per authenticator). Counted
   * until a factor is right, whatever the MFA tokens, sources or hours they came in.
   */
  factorFailures: 100,
  /** The count of wrong ones at which the owner is told (one mail: the first burst), and again at the suspension. */
  factorFailuresMailAt: 10,
  /** How long the "this wasn't me" link of a factor's mail works (undo-factor.ts): a week, for an owner who reads mail late. */
  undoLinkSeconds: 7 * 86_400,
} as const;

