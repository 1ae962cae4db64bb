import type { Actor } from '../../accounts/audit-events.js';
import { UnauthenticatedError } from '../../accounts/errors.js';
import { matchAdminKey } from './admin-keys.js';
import type { AdminKey } from './settings.js';

/** An operator, as the operator API's audit events and the account item name them. */
export type Operator = Extract<Actor, { kind: 'operator' }>;

/**
 * What a request says of its caller, as the operator routes read it (operator-routes.ts): the
 * Bearer token presented, and the principal the platform authenticated (RequestOrigin.principal).
 */
export interface OperatorCredentials {
  bearer: string | undefined;
  principal: string | undefined;
}

/**
 * Who calls the operator API: every operator route asks this first, before anything else of the
 * request. Two ways, one per kind of host: an admin key (adminKeyAuthentication: the Node server,
 * Deno, Bun, with PASSLANE_ADMIN_KEYS) or the IAM principal API Gateway authorized
 * (iamPrincipalAuthentication: the Lambda admin function behind AWS_IAM). Throws
 * `unauthenticated` (401) otherwise.
 */
export interface OperatorAuthentication {
  identify(credentials: OperatorCredentials): Promise<Operator>;
}

/** `Authorization: Bearer <admin key>`, one of PASSLANE_ADMIN_KEYS's; the operator is the key's id. */
export function adminKeyAuthentication(keys: readonly AdminKey[]): OperatorAuthentication {
  return {
    async identify({ bearer: presented }) {
      const key = presented === undefined || keys.length === 0 ? undefined : matchAdminKey(keys, presented);
      if (key === undefined) throw new UnauthenticatedError('an admin key is required (Authorization: Bearer <key>)');
      return { kind: 'operator', id: key.id };
    },
  };
}

/**
 * The IAM principal API Gateway signed the request as (its AWS_IAM authorization, SigV4): the
 * Lambda host hands it on as `origin.principal` from the event's requestContext, which API
 * Gateway sets and no client can. A request without one did not come through that authorization
 * (a misconfigured route): refused, never served as anyone.
 */
export function iamPrincipalAuthentication(): OperatorAuthentication {
  return {
    async identify({ principal }) {
      if (principal === undefined || principal === '') throw new UnauthenticatedError('the operator API is served only behind AWS_IAM authorization');
      return { kind: 'operator', id: principal };
    },
  };
}
