/**
 * Stand-ins for mail delivery in tests. `startSesCapture`: Amazon SES v2 on 127.0.0.1, just
 * SendEmail (`POST /v2/email/outbound-emails`, REST JSON), which is what the SDK's SESv2Client
 * sends; it records each request and answers like SES, or with the failures a test queues.
 * AWS itself is not reachable from tests. `captureMails`: an in-process MailSender that keeps
 * what it was given.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { MailSender, OutgoingMail } from '../../packages/server/src/mail/mail-sender.js';

export interface SesRequestRecord {
  method: string | undefined;
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: SendEmailBody;
}

/** The fields of a SendEmail request the tests look at (SES v2 API names). */
export interface SendEmailBody {
  FromEmailAddress?: string;
  FromEmailAddressIdentityArn?: string;
  Destination?: { ToAddresses?: string[] };
  ConfigurationSetName?: string;
  EmailTags?: Array<{ Name: string; Value: string }>;
  Content?: {
    Simple?: {
      Subject?: { Data: string; Charset?: string };
      Body?: { Text?: { Data: string; Charset?: string }; Html?: { Data: string; Charset?: string } };
    };
  };
}

/** An error answer: HTTP status and SES's error name (`x-amzn-ErrorType`), e.g. 400 MessageRejected. */
export interface SesFailure {
  status: number;
  type: string;
  message?: string;
}

export interface SesCapture {
  endpoint: string;
  requests: SesRequestRecord[];
  /** The next requests get these answers, in order; then SES succeeds again. */
  failNext(...failures: SesFailure[]): void;
  /** Forgets the recorded requests and any queued failures. */
  reset(): void;
  stop(): Promise<void>;
}

export async function startSesCapture(): Promise<SesCapture> {
  const requests: SesRequestRecord[] = [];
  const failures: SesFailure[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as SendEmailBody;
      requests.push({ method: request.method, path: request.url, headers: request.headers, body });
      const requestId = `local-${requests.length}`;
      if (request.method !== 'POST' || request.url !== '/v2/email/outbound-emails') {
        response.writeHead(404, { 'content-type': 'application/json', 'x-amzn-requestid': requestId, 'x-amzn-errortype': 'NotFoundException' });
        response.end(JSON.stringify({ message: `unsupported: ${request.method} ${request.url}` }));
        return;
      }
      const failure = failures.shift();
      if (failure !== undefined) {
        response.writeHead(failure.status, { 'content-type': 'application/json', 'x-amzn-requestid': requestId, 'x-amzn-errortype': failure.type });
        response.end(JSON.stringify({ message: failure.message ?? failure.type }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': requestId });
      response.end(JSON.stringify({ MessageId: `local-message-${requests.length}` }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    requests,
    failNext: (...next) => failures.push(...next),
    reset: () => {
      requests.length = 0;
      failures.length = 0;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A MailSender that keeps every mail (for use-case tests that read the link back). */
export function captureMails(): MailSender & { mails: OutgoingMail[] } {
  const mails: OutgoingMail[] = [];
  return {
    mails,
    async send(mail) {
      mails.push(mail);
    },
  };
}
