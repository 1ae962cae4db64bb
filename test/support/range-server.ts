/**
 * A stand-in for Have I Been Pwned's Pwned Passwords range API on 127.0.0.1 (the real service is
 * never called from tests): `GET /range/{5 hex}` answers `SUFFIX:COUNT` lines (CRLF) for the
 * passwords it was told are breached under that prefix, and with `Add-Padding: true` as many
 * decoy lines with a count of 0 as the real service adds. It records every request (path and
 * headers) so a test can prove what left the host, and can be told to stall or to fail.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

export interface RangeRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

export interface RangeServer {
  /** Ends with `/range/`: what PASSLANE_BREACH_CHECK_URL is set to. */
  url: string;
  requests: RangeRequest[];
  /** Marks a password breached `count` times (the SHA-1 of its NFKC form, as the real corpus holds it). */
  breach(password: string, count?: number): void;
  /** The next answers: stall this long, or answer this status. */
  behave(mode: { delayMs?: number; status?: number }): void;
  stop(): Promise<void>;
}

export function sha1Hex(password: string): string {
  return createHash('sha1').update(password.normalize('NFKC'), 'utf8').digest('hex').toUpperCase();
}

/** How many decoy lines a padded answer has (the real service pads to 800 to 1,000 lines). */
const PADDING_LINES = 800;

export async function startRangeServer(): Promise<RangeServer> {
  const breached = new Map<string, Map<string, number>>();
  const requests: RangeRequest[] = [];
  let mode: { delayMs?: number; status?: number } = {};
  const pending = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    requests.push({ path: request.url ?? '', headers: request.headers });
    const match = /^\/range\/([0-9A-F]{5})$/.exec(request.url ?? '');
    const answer = () => {
      // Stopped meanwhile: the connection is gone.
      if (!pending.delete(response)) return;
      if (mode.status !== undefined) return void response.writeHead(mode.status).end('failure on purpose');
      if (match === null || request.method !== 'GET') return void response.writeHead(400).end('The hash prefix was not in a valid format');
      const lines = [...(breached.get(match[1]!) ?? new Map<string, number>())].map(([suffix, count]) => `${suffix}:${count}`);
      if (request.headers['add-padding'] === 'true') {
        for (let i = 0; i < PADDING_LINES; i++) lines.push(`${createHash('sha1').update(`${match[1]}-${i}`).digest('hex').toUpperCase().slice(5)}:0`);
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
    };
    pending.add(response);
    if (mode.delayMs) setTimeout(answer, mode.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/range/`,
    requests,
    breach(password, count = 42) {
      const hash = sha1Hex(password);
      const under = breached.get(hash.slice(0, 5)) ?? new Map<string, number>();
      under.set(hash.slice(5), count);
      breached.set(hash.slice(0, 5), under);
    },
    behave(next) {
      mode = next;
    },
    async stop() {
      for (const response of pending) response.destroy();
      pending.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
