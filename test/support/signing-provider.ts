/**
 * A minimal OpenID provider for the presets' tests, where panva's oidc-provider cannot play the
 * part (an issuer template per tenant, Apple's client secret): a loopback server publishing a
 * discovery document (whose `issuer` the test chooses), a JWKS of a jose-made key, and a token
 * endpoint answering the ID token the test signs for the next exchange, recording each token
 * request (its headers and form) for the test to check.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

export interface TokenRequest {
  authorization: string | undefined;
  form: URLSearchParams;
}

export interface SigningProvider {
  /** The server's origin (http://127.0.0.1:<port>). */
  origin: string;
  /** The discovery document is served at `<origin><path>/.well-known/openid-configuration`, naming `issuer`. */
  publish(path: string, issuer: string): void;
  /** Signs claims with the published key (RS256). */
  sign(claims: JWTPayload): Promise<string>;
  /** The ID token the next token requests answer with (made from the request's form). */
  answerWith(idToken: (form: URLSearchParams) => Promise<string>): void;
  tokenRequests: TokenRequest[];
  stop(): Promise<void>;
}

export async function startSigningProvider(): Promise<SigningProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'preset-key', alg: 'RS256', use: 'sig' };
  const documents = new Map<string, string>();
  const tokenRequests: TokenRequest[] = [];
  let idToken: ((form: URLSearchParams) => Promise<string>) | undefined;
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', origin);
      response.setHeader('content-type', 'application/json');
      const discovery = url.pathname.endsWith('/.well-known/openid-configuration') ? documents.get(url.pathname.slice(0, -'/.well-known/openid-configuration'.length)) : undefined;
      if (discovery !== undefined) return response.end(discovery);
      if (url.pathname === '/jwks') return response.end(JSON.stringify({ keys: [jwk] }));
      if (url.pathname === '/token' && request.method === 'POST') {
        const form = new URLSearchParams(await bodyOf(request));
        tokenRequests.push({ authorization: request.headers.authorization, form });
        if (idToken === undefined) throw new Error('no ID token set for this exchange');
        return response.end(JSON.stringify({ access_token: 'an-access-token', token_type: 'Bearer', expires_in: 600, id_token: await idToken(form) }));
      }
      response.statusCode = 404;
      response.end('{}');
    })().catch((error: unknown) => {
      response.statusCode = 500;
      response.end(JSON.stringify({ error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    publish(path, issuer) {
      documents.set(
        path,
        JSON.stringify({
          issuer,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          jwks_uri: `${origin}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['pairwise'],
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
    },
    sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid }).sign(privateKey),
    answerWith(next) {
      idToken = next;
    },
    tokenRequests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
