/**
 * A real OpenID provider for the federated sign-in tests: panva's `oidc-provider` (the certified
 * Node implementation) on a loopback port, with:
 *   - one confidential client whose redirect URI is passlane's callback;
 *   - its own minimal interaction handling: the login and consent prompts are finished at once
 *     for the account the test chose (`signInAs`), as a user clicking through would;
 *   - a hook on its token endpoint's answer (`tamperIdToken`), so a test can hand passlane an ID
 *     token whose nonce, audience, issuer or expiry is wrong (signed with the provider's own
 *     key), one signed with another key, or one with `alg: none`;
 *   - a GitHub-style API (`/github/user`, `/github/user/emails`) answering for its access tokens,
 *     for the plain OAuth 2.0 flow (no `openid` scope, so no ID token).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, decodeProtectedHeader, type JWK, type JWTPayload } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

export interface ProviderAccount {
  /** The `sub` (for the GitHub-style API, a number as a string). */
  sub: string;
  email?: string;
  emailVerified?: boolean;
  /** What the provider says of the login (`amr`): `['pwd', 'mfa']` for a second factor. */
  amr?: string[];
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the next interactions sign in (until changed). */
  signInAs(account: ProviderAccount): void;
  /** Rewrites the ID token of the next token answers (until cleared with undefined). */
  tamperIdToken(rewrite: ((idToken: string, sign: (header: Record<string, unknown>, claims: JWTPayload) => Promise<string>) => Promise<string>) | undefined): void;
  /** A signer with a key the provider never published, under the provider's `kid`. */
  signWithForeignKey(claims: JWTPayload): Promise<string>;
  githubApi: { userUrl: string; emailsUrl: string };
  stop(): Promise<void>;
}

export async function startOidcProvider(options: { redirectUris: string[] }): Promise<TestOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const foreign = (await generateKeyPair('RS256', { extractable: true })).privateKey;

  let account: ProviderAccount = { sub: 'nobody' };
  const accounts = new Map<string, ProviderAccount>();
  let tamper: Parameters<TestOidcProvider['tamperIdToken']>[0];
  const clientId = 'passlane-test';
  const clientSecret = 'a-client-secret-of-at-least-32-bytes!';

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingJwk] },
    scopes: ['openid', 'email', 'profile', 'read:user', 'user:email'],
    // The ID token carries only the claims of its scopes: `amr` goes with `openid`, as a provider that reports it would.
    claims: { acr: null, auth_time: null, sid: null, openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name'] },
    // The ID token carries the claims itself (passlane reads no userinfo).
    conformIdTokenClaims: false,
    findAccount: async (_ctx, sub) => {
      const found = accounts.get(sub);
      if (found === undefined) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, ...(found.email !== undefined && { email: found.email, email_verified: found.emailVerified === true }) }),
      };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['a-cookie-signing-key-for-tests-only'] },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Grant: 600, Interaction: 600, Session: 600 },
    renderError: async (ctx, out) => {
      ctx.type = 'application/json';
      ctx.body = out;
    },
  };
  const provider = new Provider(issuer, configuration);
  // The token endpoint's answer, rewritten when a test asks: its body is the token response object.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/token' && tamper !== undefined && ctx.status === 200) {
      const body = ctx.body as { id_token?: string };
      if (body.id_token !== undefined) body.id_token = await tamper(body.id_token, sign);
    }
  });
  const sign = async (header: Record<string, unknown>, claims: JWTPayload): Promise<string> =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: signingJwk.kid, ...header }).sign(privateKey);
  const providerHandler = provider.callback();

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', issuer);
    if (url.pathname.startsWith('/interaction/')) {
      void finishInteraction(provider, request, response, () => account).catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
      return;
    }
    if (url.pathname.startsWith('/github/')) {
      void gitHubApi(provider, url.pathname, request, response, accounts);
      return;
    }
    providerHandler(request, response);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(next) {
      account = next;
      accounts.set(next.sub, next);
    },
    tamperIdToken(rewrite) {
      tamper = rewrite;
    },
    signWithForeignKey: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: signingJwk.kid! }).sign(foreign),
    githubApi: { userUrl: `${issuer}/github/user`, emailsUrl: `${issuer}/github/user/emails` },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The login prompt: the chosen account (with its `amr`); the consent prompt: every scope and claim asked. */
async function finishInteraction(provider: Provider, request: IncomingMessage, response: ServerResponse, current: () => ProviderAccount): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  const account = current();
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(request, response, { login: { accountId: account.sub, ...(account.amr !== undefined && { amr: account.amr }) } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
  grant.addOIDCScope(details.params.scope as string);
  const grantId = await grant.save();
  await provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/** GitHub's `/user` and `/user/emails`, for the access tokens the provider issued without `openid`. */
async function gitHubApi(provider: Provider, path: string, request: IncomingMessage, response: ServerResponse, accounts: Map<string, ProviderAccount>): Promise<void> {
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  const found = token === undefined ? undefined : await provider.AccessToken.find(token);
  const account = found === undefined ? undefined : accounts.get(found.accountId);
  response.setHeader('content-type', 'application/json');
  if (account === undefined) {
    response.statusCode = 401;
    response.end(JSON.stringify({ message: 'Bad credentials' }));
    return;
  }
  if (path === '/github/user') {
    response.end(JSON.stringify({ id: Number(account.sub), login: `user${account.sub}` }));
    return;
  }
  const emails = account.email === undefined ? [] : [{ email: account.email, primary: true, verified: account.emailVerified === true }, { email: `other-${account.sub}@example.org`, primary: false, verified: true }];
  response.end(JSON.stringify(emails));
}

export { decodeJwt, decodeProtectedHeader };
