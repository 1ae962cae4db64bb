/**
 * A login's result as a test expects it: a session (any other result fails the test, with its
 * kind), or a second factor due. The use cases return both as values (features/login/login-verdict.ts).
 */
import { login } from '../../packages/server/src/features/login/login.js';
import { loginWithSecondFactor } from '../../packages/server/src/features/login/login-mfa.js';
import type { LoginResult, MfaRequiredResult } from '../../packages/server/src/features/login/login-verdict.js';
import { loginWithPasskey } from '../../packages/server/src/features/passkeys/passkey-login.js';

export type LoginSession = Extract<LoginResult, { kind: 'session' }>;

export async function sessionOf(result: Promise<LoginResult>): Promise<LoginSession> {
  const answer = await result;
  if (answer.kind !== 'session') throw new Error(`expected a session, the login answered ${answer.kind}`);
  return answer;
}

export async function mfaRequiredOf(result: Promise<LoginResult>): Promise<MfaRequiredResult> {
  const answer = await result;
  if (answer.kind !== 'mfa_required') throw new Error(`expected mfa_required, the login answered ${answer.kind}`);
  return answer;
}

/** POST /login's use case, expected to start a session. */
export const loginSession = (...args: Parameters<typeof login>) => sessionOf(login(...args));
/** POST /login/mfa's, expected to start a session. */
export const secondFactorSession = (...args: Parameters<typeof loginWithSecondFactor>) => sessionOf(loginWithSecondFactor(...args));
/** POST /passkey/login's, expected to start a session. */
export const passkeySession = (...args: Parameters<typeof loginWithPasskey>) => sessionOf(loginWithPasskey(...args));
