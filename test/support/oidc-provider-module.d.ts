/**
 * The part of `oidc-provider` 9 (which ships no types) that test/support/oidc-provider.ts uses.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Interaction {
    uid: string;
    prompt: { name: string };
    params: Record<string, unknown>;
    session?: { accountId: string };
  }

  export interface Configuration {
    clients?: Record<string, unknown>[];
    jwks?: { keys: object[] };
    scopes?: string[];
    claims?: Record<string, string[] | null>;
    conformIdTokenClaims?: boolean;
    findAccount?: (ctx: unknown, sub: string) => Promise<{ accountId: string; claims: () => Promise<Record<string, unknown>> } | undefined>;
    interactions?: { url: (ctx: unknown, interaction: Interaction) => string };
    features?: Record<string, unknown>;
    cookies?: { keys: string[] };
    pkce?: { required: () => boolean };
    ttl?: Record<string, number>;
    renderError?: (ctx: { type: string; body: unknown }, out: unknown) => Promise<void>;
  }

  interface KoaContext {
    path: string;
    status: number;
    body: unknown;
  }

  class Grant {
    constructor(init: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<Interaction>;
    interactionFinished(request: IncomingMessage, response: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    Grant: typeof Grant;
    AccessToken: { find(token: string): Promise<{ accountId: string } | undefined> };
  }
}
