/**
 * The old system behind an HTTPS endpoint (PASSLANE_MIGRATION_URL): one signed POST per
 * question, with the runtime's fetch, so the Worker uses it as Lambda does. Contract and
 * signature: README.md here.
 */
import { MigrationUnavailableError, type MigrationSource } from './migration-source.js';
import { MAX_ANSWER_BYTES, readExistsAnswer, readMigrationAnswer } from './read-answer.js';
import { createRequestSigner, MIGRATION_SIGNATURE_HEADER } from './request-signature.js';
import { readCappedText } from '../../shared/read-capped-text.js';
import { withinTimeout } from './within-timeout.js';

export interface HttpMigrationSourceOptions {
  /** Checked by the configuration (https, or http on a loopback host). */
  url: string;
  /** The HMAC key, as UTF-8. */
  secret: string;
  /** The whole question: connection, request and the answer's last byte. */
  timeoutMs: number;
  /** Injected in tests; the platform's `fetch` otherwise. */
  fetch?: typeof fetch;
  /** Epoch ms, for the signature's `t`. */
  now?: () => number;
}

export function createHttpMigrationSource(options: HttpMigrationSourceOptions): MigrationSource {
  const { url, timeoutMs } = options;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? Date.now;
  const sign = createRequestSigner(options.secret);
  /** One signed POST of `question`; the answer's body. */
  const ask = (question: object) =>
    withinTimeout(timeoutMs, async (signal) => {
      const body = JSON.stringify(question);
      const response = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': 'passlane',
          [MIGRATION_SIGNATURE_HEADER]: await sign(body, now() / 1000),
        },
        body,
        // Never followed: a redirect (307, 308) would send the password on to another address.
        redirect: 'manual',
        signal,
      });
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => {});
        throw new MigrationUnavailableError('status', { status: response.status });
      }
      return readCapped(response);
    });
  return {
    check: async (email, password) => readMigrationAnswer(await ask({ email, password })),
    holds: async (email) => readExistsAnswer(await ask({ question: 'exists', email })),
  };
}

/** The body as text, refused past MAX_ANSWER_BYTES without reading the rest. */
async function readCapped(response: Response): Promise<string> {
  const text = await readCappedText(response, MAX_ANSWER_BYTES);
  if (text === undefined) throw new MigrationUnavailableError('malformed_answer');
  return text;
}
