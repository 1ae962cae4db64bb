/**
 * What an authenticator app does with an otpauth URI's secret, written apart from the server's own
 * TOTP code (features/mfa) so the tests check it against an independent reading of RFC 6238.
 */
import { generateHOTP } from '@oslojs/otp';

/** RFC 4648 base32 (no padding, any case), as an app reads the secret typed or scanned. */
export function base32Bytes(text: string): Uint8Array {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text.toUpperCase()) {
    buffer = (buffer << 5) | alphabet.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return new Uint8Array(bytes);
}

/** The 6-digit code an app shows at `epochMs` for `secret` (SHA-1, 30-second steps), `steps` later or earlier. */
export function totpCode(secret: Uint8Array, epochMs: number, steps = 0): string {
  return generateHOTP(secret, BigInt(Math.floor(epochMs / 30_000) + steps), 6);
}

/** An app set up from an otpauth URI: its secret, and the code it shows at a time. */
export function authenticatorApp(otpauthUri: string): { secret: Uint8Array; codeAt: (now: Date) => string } {
  const secret = base32Bytes(new URL(otpauthUri).searchParams.get('secret')!);
  return { secret, codeAt: (now: Date) => totpCode(secret, now.getTime()) };
}
