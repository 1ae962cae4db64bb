/**
 * The rules for new passwords (rules/README.md has the reasons). config/password-config.ts reads
 * them from the environment; in code, pass your own to buildPasswordPolicy (wiring).
 */
export interface PasswordConfig {
  /** PASSLANE_PASSWORD_MIN_LENGTH (8): code points that count after NFKC (rules/README.md), 8 to 64; NIST asks 15 where the password is the only factor. */
  minLength: number;
  /** PASSLANE_SERVICE_NAME (passlane): a password containing it is refused, as one containing the email's local part is. */
  serviceName: string;
  breachCheck: BreachCheckConfig;
}

export interface BreachCheckConfig {
  /** PASSLANE_BREACH_CHECK (false): ask Have I Been Pwned's range API (k-anonymity) about each new password. */
  enabled: boolean;
  /** PASSLANE_BREACH_CHECK_URL: the range endpoint, the 5-character prefix appended. */
  url: string;
  /** PASSLANE_BREACH_CHECK_TIMEOUT_MS (1000): 100 to 10000. */
  timeoutMs: number;
  /** PASSLANE_BREACH_CHECK_MIN_COUNT (1): sightings in the corpus from which a password is refused. */
  minCount: number;
  /** PASSLANE_BREACH_CHECK_FAIL_CLOSED (false): when the check cannot answer, refuse with 503 instead of accepting. */
  failClosed: boolean;
}

export const DEFAULT_PASSWORD_MIN_LENGTH = 8;
export const DEFAULT_BREACH_CHECK_URL = 'https://api.pwnedpasswords.com/range/';
/**
 * Off unless asked: it is a round trip to a third party on every new password. When on: a second
 * at most, refused from one sighting, and open when the service cannot answer (the offline
 * blocklist has already passed it; rules/README.md, "The breach check").
 */
export const DEFAULT_BREACH_CHECK: Readonly<BreachCheckConfig> = { enabled: false, url: DEFAULT_BREACH_CHECK_URL, timeoutMs: 1000, minCount: 1, failClosed: false };
