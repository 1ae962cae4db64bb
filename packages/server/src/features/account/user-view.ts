import { PASSWORD_RESET_REQUIRED } from '../../accounts/password-reset-required.js';
import type { UserRecord } from '../../storage/account-store.js';
import type { StoredMfa } from '../../storage/mfa-store.js';
import { isKnownDevice, isLive, type AccountSessions } from '../../storage/session-store.js';

/** An account as an operator sees it: never a hash, a secret, a code or a token. Times are ISO 8601. */
export interface UserView {
  userId: string;
  email: string;
  createdAt: string;
  emailVerified?: boolean;
  passwordChangedAt?: string;
  /** A "this wasn't me" link locked the password until a reset (features/mfa/undo-factor.ts). */
  passwordResetRequired: boolean;
  disabledAt?: string;
  disabledBy?: string;
  factors: {
    totp: boolean;
    recoveryCodes: number;
    passkeys: Array<{ id: string; name: string; createdAt: string; lastUsedAt?: string }>;
  };
  /** Live sessions and known devices now. */
  sessions: number;
  devices: number;
}

export function userView(user: UserRecord, factors: StoredMfa | undefined, sessions: AccountSessions, nowSeconds: number): UserView {
  const mine = factors?.userId === user.userId ? factors : undefined;
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
  return {
    userId: user.userId,
    email: user.email,
    createdAt: user.createdAt.toISOString(),
    ...(user.emailVerified !== undefined && { emailVerified: user.emailVerified }),
    ...(user.passwordChangedAt !== undefined && { passwordChangedAt: user.passwordChangedAt.toISOString() }),
    passwordResetRequired: user.passwordHash === PASSWORD_RESET_REQUIRED,
    ...(user.disabledAt !== undefined && { disabledAt: user.disabledAt.toISOString() }),
    ...(user.disabledBy !== undefined && { disabledBy: user.disabledBy }),
    factors: {
      totp: mine?.totpSecret !== undefined,
      recoveryCodes: mine?.recoveryCodes.length ?? 0,
      passkeys: [...(mine?.passkeys ?? new Map()).entries()].map(([id, passkey]) => ({
        id,
        name: passkey.name,
        createdAt: iso(passkey.createdAt),
        ...(passkey.lastUsedAt !== undefined && { lastUsedAt: iso(passkey.lastUsedAt) }),
      })),
    },
    sessions: [...sessions.sessions.values()].filter((session) => session.userId === user.userId && isLive(session, nowSeconds)).length,
    devices: [...sessions.devices.values()].filter((device) => device.userId === user.userId && isKnownDevice(device, nowSeconds)).length,
  };
}
