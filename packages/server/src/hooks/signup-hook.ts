import { HookUnavailableError } from './errors.js';
import type { HookCaller } from './hook-caller.js';

/** How the account would be created. */
export type SignupMethod = 'password' | 'federated' | 'migration';

export interface SignupQuestion {
  /** The canonical address the account would have. */
  email: string;
  method: SignupMethod;
  /** The provider of a federated sign-in (`google`, `github`, ...). */
  provider?: string;
}

/** The hook's word: allowed, or refused with its own reason, which the client sees. */
export type SignupVerdict = { allow: true } | { allow: false; code: string };

/** A refusal's code: a word a client can branch on, never prose (it is answered as it is). */
export const SIGNUP_REFUSAL_CODE = /^[a-z0-9_]{1,64}$/;

export interface SignupHook {
  ask(question: SignupQuestion): Promise<SignupVerdict>;
}

export function createSignupHook(caller: HookCaller, options: { now: () => Date }): SignupHook {
  return {
    async ask(question) {
      const data = { email: question.email, method: question.method, ...(question.provider !== undefined && { provider: question.provider }) };
      return checkedVerdict(await caller({ type: 'signup.requested', timestamp: options.now().toISOString(), data }));
    },
  };
}

/** `{ "allow": true }` or `{ "allow": false, "code": "<a-z0-9_>" }`; anything else is a failed hook. */
export function checkedVerdict(answer: Record<string, unknown>): SignupVerdict {
  if (answer.allow === true) return { allow: true };
  if (answer.allow === false && typeof answer.code === 'string' && SIGNUP_REFUSAL_CODE.test(answer.code)) return { allow: false, code: answer.code };
  throw new HookUnavailableError('malformed_answer');
}
