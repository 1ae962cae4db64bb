/**
 * A stand-in for the old system a lazy migration asks (packages/server/src/features/migration/README.md): accounts with
 * bcrypt hashes in memory, as a team's old app holds them, answering the contract's questions
 * behind an HTTP endpoint on 127.0.0.1 or as a Lambda handler for the local Lambda API. The HTTP
 * endpoint checks the signature itself with node:crypto, exactly as the README tells teams to,
 * so a test passes only if passlane signs as documented.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import bcryptjs from 'bcryptjs';

export interface OldAccount {
  hash: string;
  emailVerified?: boolean;
}

/** The old system's accounts and its check; `asked` counts every question that reached it. */
export function oldSystemAccounts() {
  const accounts = new Map<string, OldAccount>();
  const asked: string[] = [];
  return {
    asked,
    add(email: string, password: string, options: { emailVerified?: boolean } = {}): void {
      accounts.set(email.toLowerCase(), { hash: bcryptjs.hashSync(password, 4), ...options });
    },
    /** The contract's answer to either question: `{question: "exists", email}` or `{email, password}`. */
    async answer(request: unknown): Promise<{ exists: boolean } | { valid: boolean; emailVerified?: boolean }> {
      const { question, email } = request as { question?: string; email: string };
      if (question !== 'exists') return this.check(request);
      asked.push(email);
      return { exists: accounts.has(email.toLowerCase()) };
    },
    /** The contract's answer to `{email, password}`. */
    async check(request: unknown): Promise<{ valid: boolean; emailVerified?: boolean }> {
      const { email, password } = request as { email: string; password: string };
      asked.push(email);
      const account = accounts.get(email.toLowerCase());
      const valid = account !== undefined && (await bcryptjs.compare(password, account.hash));
      return valid && account.emailVerified !== undefined ? { valid, emailVerified: account.emailVerified } : { valid };
    },
  };
}

export type OldSystemAccounts = ReturnType<typeof oldSystemAccounts>;

/** What the next answers do instead of the honest one. */
export interface OldSystemBehaviour {
  /** Stall this long first. */
  delayMs?: number;
  /** Answer this status (and a short text body) instead. */
  status?: number;
  /** Answer 200 with this body instead. */
  body?: string;
  /** Runs after the signature is checked, before the answer (a registration racing the migration). */
  beforeAnswer?: (email: string) => Promise<void>;
}

export interface OldSystemServer {
  url: string;
  /** Every request, signed correctly or not: what left passlane. */
  /** `question` only for `{question: "exists", email}` (with " +password" if a password came along). */
  requests: Array<{ email?: string; question?: string; signature: 'valid' | 'invalid' | 'stale' | 'missing' }>;
  behave(behaviour: OldSystemBehaviour): void;
  stop(): Promise<void>;
}

/** Stripe's tolerance, as README.md advises. */
const TOLERANCE_SECONDS = 300;

export async function startOldSystemServer(options: { secret: string; accounts: OldSystemAccounts; now?: () => number }): Promise<OldSystemServer> {
  const requests: OldSystemServer['requests'] = [];
  const now = options.now ?? Date.now;
  let behaviour: OldSystemBehaviour = {};
  const pending = new Set<ServerResponse>();

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      pending.add(response);
      void answer(Buffer.concat(chunks), request.headers['passlane-signature'], request.method, response).finally(() => pending.delete(response));
    });
  });

  async function answer(raw: Buffer, header: string | string[] | undefined, method: string | undefined, response: ServerResponse): Promise<void> {
    const signature = checkSignature(typeof header === 'string' ? header : undefined, raw);
    const body = JSON.parse(raw.toString('utf8')) as { email?: string; question?: string; password?: string };
    // The existence question carries no password: recorded as a question so a test sees both.
    requests.push({ ...(typeof body.email === 'string' && { email: body.email }), ...(typeof body.question === 'string' && { question: `${body.question}${'password' in body ? ' +password' : ''}` }), signature });
    if (method !== 'POST' || signature !== 'valid') return void response.writeHead(401).end('bad signature');
    const { delayMs, status, body: replaced, beforeAnswer } = behaviour;
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (!pending.has(response)) return;
    if (beforeAnswer) await beforeAnswer(body.email ?? '');
    if (status !== undefined) return void response.writeHead(status, { 'content-type': 'text/plain' }).end('failure on purpose');
    if (replaced !== undefined) return void response.writeHead(200, { 'content-type': 'application/json' }).end(replaced);
    const verdict = await options.accounts.answer(body);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(verdict));
  }

  /** As README.md says: t within the tolerance, HMAC-SHA256 over "<t>.<raw body>", compared in constant time. */
  function checkSignature(header: string | undefined, raw: Buffer): OldSystemServer['requests'][number]['signature'] {
    if (header === undefined) return 'missing';
    const parts = new Map(header.split(',').map((part) => [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)] as const));
    const t = parts.get('t') ?? '';
    if (!/^\d+$/.test(t)) return 'invalid';
    if (Math.abs(now() / 1000 - Number(t)) > TOLERANCE_SECONDS) return 'stale';
    const expected = createHmac('sha256', options.secret).update(`${t}.`).update(raw).digest();
    const given = Buffer.from(parts.get('v1') ?? '', 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected) ? 'valid' : 'invalid';
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/check`,
    requests,
    behave(next) {
      behaviour = next;
    },
    async stop() {
      for (const response of pending) response.destroy();
      pending.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
