import { AccountExistsError } from '../storage/errors.js';
import type { RegisterDependencies } from './dependencies.js';
import { AccountExistsConflictError } from './errors.js';
import { enforceRateLimits } from './enforce-rate-limits.js';
import { translateErrors } from './translate-errors.js';
import { normaliseEmail, requireObject, requireString } from './validate-input.js';

export interface RegisterRequest {
  body: unknown;
  sourceIp?: string;
}

/**
 * Creates an account. The write is conditional on the email being free, so a duplicate (or 20
 * racing duplicates) can never overwrite an account. The hash is computed before the write in
 * both cases, so a taken email costs the same time as a free one.
 */
export async function register(deps: RegisterDependencies, request: RegisterRequest): Promise<{ userId: string }> {
  const body = requireObject(request.body);
  const email = normaliseEmail(body.email);
  const password = requireString(body, 'password');
  return translateErrors(async () => {
    await enforceRateLimits(deps, { action: 'register', sourceIp: request.sourceIp });
    const passwordHash = await deps.hasher.hash(password);
    const userId = deps.newUserId?.() ?? crypto.randomUUID();
    try {
      await deps.users.createUser({ email, userId, passwordHash, createdAt: deps.now?.() ?? new Date() });
    } catch (error) {
      if (error instanceof AccountExistsError) throw new AccountExistsConflictError();
      throw error;
    }
    deps.audit({ type: 'auth.registered', userId });
    return { userId };
  });
}
