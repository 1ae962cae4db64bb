import { HookUnavailableError } from './errors.js';
import type { HookCaller } from './hook-caller.js';
import { isPlainObject } from './read-answer.js';
import type { TokenHookFailurePolicy } from './settings.js';

/**
 * Claims a hook may never set: the ones passlane sets and verifiers trust (RFC 7519, RFC 9068,
 * OIDC's `auth_time`, RFC 8176's `amr`), plus `nbf` and `email_verified`, which a verifier would
 * read as passlane's word. A hook answering one is a failed hook, not a quietly dropped claim.
 */
export const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'sid',
  'amr',
  'auth_time',
  'client_id',
  'scope',
  'email_verified',
]);

/**
 * The hook's claims, serialised as UTF-8 JSON, at most this: a token rides every request's
 * Authorization header, base64url makes it a third longer, and common limits on one header
 * (nginx's default line, API Gateway's total) sit near 8 KiB; claims beyond it belong in the API.
 */
export const MAX_HOOK_CLAIMS_BYTES = 2 * 1024;

/** What the hook is told of the session whose token is being minted. */
export interface TokenHookQuestion {
  /** The account's id (the token's `sub`). */
  accountId: string;
  /** The account's address; absent for a session started before the hook was set. */
  email?: string;
  /** How the session's login authenticated (RFC 8176). */
  amr: readonly string[];
  /** What is minting: a login (any way in) or a refresh. */
  trigger: 'login' | 'refresh';
}

/** The token hook as the sessions feature asks it. */
export interface TokenHook {
  readonly onFailure: TokenHookFailurePolicy;
  /** The extra claims, checked; HookUnavailableError when there are none to trust. */
  claims(question: TokenHookQuestion): Promise<Record<string, unknown>>;
}

export function createTokenHook(caller: HookCaller, options: { onFailure: TokenHookFailurePolicy; clientId?: string; scope?: string; now: () => Date }): TokenHook {
  const { onFailure, clientId, scope, now } = options;
  return {
    onFailure,
    async claims(question) {
      const data = {
        accountId: question.accountId,
        ...(question.email !== undefined && { email: question.email }),
        amr: [...question.amr],
        ...(clientId !== undefined && { client_id: clientId }),
        ...(scope !== undefined && { scope }),
        trigger: question.trigger,
      };
      const answer = await caller({ type: 'token.claims_requested', timestamp: now().toISOString(), data });
      return checkedClaims(answer);
    },
  };
}

/** `{ "claims": { ... } }`: an object, no reserved name, within the size bound. */
export function checkedClaims(answer: Record<string, unknown>): Record<string, unknown> {
  const { claims } = answer;
  if (!isPlainObject(claims)) throw new HookUnavailableError('malformed_answer');
  for (const name of Object.keys(claims)) {
    if (RESERVED_CLAIMS.has(name)) throw new HookUnavailableError('reserved_claim');
  }
  if (new TextEncoder().encode(JSON.stringify(claims)).byteLength > MAX_HOOK_CLAIMS_BYTES) throw new HookUnavailableError('claims_too_large');
  return claims;
}
