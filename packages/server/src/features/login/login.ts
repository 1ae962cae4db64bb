import { translateErrors } from '../../accounts/translate-errors.js';
import { canonicalEmail } from '../../accounts/canonical-email.js';
import type { LoginDependencies } from './dependencies.js';
import { decideLogin } from './finish-login.js';
import type { LoginClient, LoginResult } from './login-verdict.js';
import { passwordVerdict } from './password-verdict.js';

export type { LoginResponse, LoginResult } from './login-verdict.js';

export interface LoginRequest extends LoginClient {
  /** As typed: its canonical form (canonical-email.ts) is the account's key. */
  email: string;
  password: string;
}

/** A password changed while we upgraded: read again and decide again, this many times at most. */
const MAX_DECISIONS = 3;

/**
 * POST /login: the password's bound first (the same answer whatever is stored), then the
 * password strategy (password-verdict.ts: the read, the attempt reserved, the verify or the old
 * system's answer, every failure padded alike) and the shared step (finish-login.ts: the gates,
 * the rehash, the second factor, the session). A session, or `mfa_required` on an account with a
 * second factor; if a password change overtook the read, the login reads again and decides
 * again, and issues no token on the stale read.
 */
export async function login(deps: LoginDependencies, request: LoginRequest): Promise<LoginResult> {
  const email = canonicalEmail(request.email);
  const { password } = request;
  return translateErrors(async () => {
    deps.hasher.checkPassword(password);
    const fingerprint = deps.fingerprint(email);
    return decideLogin(deps, request, () => passwordVerdict(deps, { email, password, fingerprint }, request), MAX_DECISIONS);
  });
}
