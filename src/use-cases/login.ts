import { PasslaneError } from '../hashing/errors.js';
import { HashChangedError, StorageUnavailableError } from '../storage/errors.js';
import type { UserRecord } from '../storage/account-store.js';
import type { AuthDependencies } from './dependencies.js';
import { InvalidCredentialsError } from './errors.js';
import { enforceRateLimits } from './enforce-rate-limits.js';
import { emailFingerprint } from './fingerprint.js';
import { translateErrors } from './translate-errors.js';
import { normaliseEmail, requireObject, requireString } from './validate-input.js';

export interface LoginRequest {
  body: unknown;
  sourceIp?: string;
}

export interface LoginResponse {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

/**
 * Rate limits, then a consistent read, then one verify: against the stored hash, or a dummy at
 * current parameters for an unknown email, so both failures cost the same and answer the same.
 * A good login with an outdated hash upgrades it with a write conditional on the hash just
 * verified, so a password changed meanwhile is never overwritten. A failed login writes nothing.
 */
export async function login(deps: AuthDependencies, request: LoginRequest): Promise<LoginResponse> {
  const body = requireObject(request.body);
  const email = normaliseEmail(body.email);
  const password = requireString(body, 'password');
  return translateErrors(async () => {
    const fingerprint = await emailFingerprint(email);
    await enforceRateLimits(deps, { action: 'login', accountKey: fingerprint, emailFingerprint: fingerprint, sourceIp: request.sourceIp });

    const user = await deps.users.getUserByEmail(email);
    if (!user) {
      await deps.hasher.verifyDummy(password);
      deps.audit({ type: 'auth.login_failed', reason: 'unknown_account', emailFingerprint: fingerprint });
      throw new InvalidCredentialsError();
    }
    const result = await verifyStoredHash(deps, user, password);
    if (!result.ok) {
      deps.audit({ type: 'auth.login_failed', reason: 'wrong_password', userId: user.userId, emailFingerprint: fingerprint });
      throw new InvalidCredentialsError();
    }
    if (result.needsRehash) await upgradeHash(deps, user, password);
    deps.audit({ type: 'auth.login_succeeded', userId: user.userId });
    return deps.tokens.issue({ userId: user.userId, now: deps.now?.() });
  });
}

/** A stored value the hasher refuses is a data problem to log, not a wrong password. */
export async function verifyStoredHash(deps: AuthDependencies, user: UserRecord, password: string) {
  try {
    return await deps.hasher.verify(user.passwordHash, password);
  } catch (error) {
    if (error instanceof PasslaneError && error.code.startsWith('ERR_HASH_')) {
      deps.audit({ type: 'auth.stored_hash_rejected', userId: user.userId, code: error.code });
    }
    throw error;
  }
}

async function upgradeHash(deps: AuthDependencies, user: UserRecord, password: string): Promise<void> {
  const from = describe(deps, user.passwordHash);
  // The password just verified: today's minimum length does not stop it moving to argon2id.
  const newHash = await deps.hasher.hash(password, { upgrade: true });
  try {
    await deps.users.replacePasswordHash({ email: user.email, expectedHash: user.passwordHash, newHash, reason: 'rehash', now: deps.now?.() });
    deps.audit({ type: 'auth.password_rehashed', userId: user.userId, from, to: describe(deps, newHash) });
  } catch (error) {
    // The login itself was decided on a consistent read; losing the upgrade only delays it.
    if (error instanceof HashChangedError) {
      deps.audit({ type: 'auth.password_rehash_skipped', userId: user.userId, reason: 'hash_changed' });
    } else if (error instanceof StorageUnavailableError) {
      deps.audit({ type: 'auth.password_rehash_skipped', userId: user.userId, reason: 'storage_unavailable' });
    } else {
      throw error;
    }
  }
}

function describe(deps: AuthDependencies, stored: string): string {
  const { scheme, parameters, pepperKeyId } = deps.hasher.describe(stored);
  return [scheme, parameters, pepperKeyId && `pepper=${pepperKeyId}`].filter(Boolean).join(' ');
}
