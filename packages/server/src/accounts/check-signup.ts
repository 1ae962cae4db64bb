import { HookUnavailableError } from '../hooks/errors.js';
import type { SignupHook, SignupQuestion } from '../hooks/signup-hook.js';
import type { Audit } from './audit-events.js';
import { SignupHookUnavailableError, SignupRefusedError } from './errors.js';
import type { EmailFingerprint } from './fingerprint.js';

/** What asking the sign-up hook takes; `signupHook` absent unless PASSLANE_SIGNUP_HOOK_URL or _FUNCTION is set (nothing is asked then). */
export interface SignupCheckDependencies {
  signupHook?: SignupHook;
  fingerprint: EmailFingerprint;
  audit: Audit;
}

/**
 * Asks the sign-up hook (src/hooks) before an account is created: registration, a first federated
 * sign-in, lazy migration. Refused: SignupRefusedError with the hook's code. No usable answer:
 * SignupHookUnavailableError (503), since an account made unasked could not be taken back by the
 * rule that would have refused it. Callers ask before they learn whether the address is taken,
 * so neither answer says anything about existing accounts.
 */
export async function checkSignup(deps: SignupCheckDependencies, question: SignupQuestion): Promise<void> {
  const hook = deps.signupHook;
  if (hook === undefined) return;
  let verdict;
  try {
    verdict = await hook.ask(question);
  } catch (error) {
    if (!(error instanceof HookUnavailableError)) throw error;
    deps.audit({
      type: 'auth.signup_hook_failed',
      method: question.method,
      reason: error.reason,
      ...(error.status !== undefined && { status: error.status }),
      emailFingerprint: deps.fingerprint(question.email),
    });
    throw new SignupHookUnavailableError({ cause: error });
  }
  if (verdict.allow) return;
  deps.audit({ type: 'auth.signup_refused', method: question.method, code: verdict.code, emailFingerprint: deps.fingerprint(question.email) });
  throw new SignupRefusedError(verdict.code);
}
