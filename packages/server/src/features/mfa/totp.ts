import { createTOTPKeyURI, verifyHOTP } from '@oslojs/otp';

/**
 * TOTP as authenticator apps expect it (RFC 6238): SHA-1, 6 digits, 30-second steps, from a
 * 20-byte secret (RFC 4226 §4 asks at least 128 bits, recommends 160). The clock is passed in:
 * @oslojs/otp's own TOTP helpers read Date.now, so the steps are counted here and each checked
 * with its HOTP (constant-time comparison).
 */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
export const TOTP_SECRET_BYTES = 20;
/** Steps accepted either side of the current one: a clock a little off, a code typed as it turned. */
export const TOTP_WINDOW_STEPS = 1;

export function newTotpSecret(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(TOTP_SECRET_BYTES));
}

export function totpStep(now: Date): number {
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/**
 * The time step whose code this is, within the window; undefined when none. Later steps first,
 * so of two matches the later is stored as used.
 */
export function matchTotp(secret: Uint8Array, code: string, now: Date): number | undefined {
  if (!/^[0-9]{6}$/.test(code)) return undefined;
  const current = totpStep(now);
  for (let step = current + TOTP_WINDOW_STEPS; step >= current - TOTP_WINDOW_STEPS; step--) {
    if (verifyHOTP(secret, BigInt(step), TOTP_DIGITS, code)) return step;
  }
  return undefined;
}

/** The `otpauth://totp/...` URI an authenticator app scans (the secret in base32 inside: for the owner only). */
export function totpUri(issuer: string, accountName: string, secret: Uint8Array): string {
  return createTOTPKeyURI(issuer, accountName, secret, TOTP_PERIOD_SECONDS, TOTP_DIGITS);
}
