import { TokenHookUnavailableError } from '../../accounts/errors.js';
import { HookUnavailableError } from '../../hooks/errors.js';
import type { TokenHookQuestion } from '../../hooks/token-hook.js';
import type { TokenHookDependencies } from './dependencies.js';

/**
 * The token hook's claims for a session's next access token, or none when no hook is set (no
 * await then). Asked before anything is written: a login's session, a refresh's rotation; so a
 * refusal leaves no orphan session and never spends the refresh token. A failed hook refuses
 * (TokenHookUnavailableError, 503) or, where the deployment says so, gives the token without
 * claims; either way the audit says why (src/hooks/README.md).
 */
export async function tokenHookClaims(deps: TokenHookDependencies, question: TokenHookQuestion): Promise<Record<string, unknown> | undefined> {
  const hook = deps.tokenHook;
  if (hook === undefined) return undefined;
  try {
    return await hook.claims(question);
  } catch (error) {
    if (!(error instanceof HookUnavailableError)) throw error;
    const refused = hook.onFailure === 'refuse';
    deps.audit({
      type: 'auth.token_hook_failed',
      userId: question.accountId,
      trigger: question.trigger,
      reason: error.reason,
      ...(error.status !== undefined && { status: error.status }),
      outcome: refused ? 'refused' : 'without_claims',
    });
    if (refused) throw new TokenHookUnavailableError({ cause: error });
    return undefined;
  }
}
