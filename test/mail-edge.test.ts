/**
 * Mail from the edge: src/mail and packages/server/src/runtimes/workers/ses-client.ts bundled like the Worker (browser build of
 * the SDK: fetch, Web Crypto signatures) and run in workerd, sending SendEmail to the local SES
 * capture endpoint. Also what the Worker's SES client requires when no endpoint is set.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForEdge } from '../packages/server/src/runtimes/workers/build-worker.js';
import { workerSesClientConfig } from '../packages/server/src/runtimes/workers/ses-client.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { startSesCapture, type SesCapture } from './support/ses-capture.js';

let outdir: string;
let ses: SesCapture;
let miniflare: Miniflare;

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'passlane-mail-edge-'));
  const [bundle, capture, wrangler] = await Promise.all([
    bundleForEdge({ entry: new URL('./support/ses-capture-worker.ts', import.meta.url).pathname, outdir }),
    startSesCapture(),
    readFile(new URL('../wrangler.toml', import.meta.url), 'utf8'),
  ]);
  ses = capture;
  miniflare = new Miniflare({
    modules: true,
    scriptPath: bundle.scriptPath,
    modulesRoot: outdir,
    compatibilityDate: /^compatibility_date = "([\d-]+)"/m.exec(wrangler)![1]!,
    bindings: {
      PASSLANE_MAIL_TRANSPORT: 'ses',
      PASSLANE_MAIL_FROM: 'Example <no-reply@example.com>',
      PASSLANE_APP_URL: 'https://app.example.com',
      PASSLANE_SES_IDENTITY_ARN: 'arn:aws:ses:eu-west-1:123456789012:identity/example.com',
      PASSLANE_SES_ENDPOINT: ses.endpoint,
      AWS_ACCESS_KEY_ID: 'AKIDEDGE',
      AWS_SECRET_ACCESS_KEY: 'edge-secret',
    },
  });
  await miniflare.ready;
}, 120_000);

afterAll(async () => {
  await miniflare?.dispose();
  await ses?.stop();
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

describe('SES from a Worker (workerd)', () => {
  it('sends a signed SendEmail over fetch', async () => {
    const response = await miniflare.dispatchFetch('http://worker.test/?to=ada@example.com');
    expect(await response.text()).toBe('sent');
    expect(ses.requests).toHaveLength(1);
    const [request] = ses.requests;
    expect(request!.path).toBe('/v2/email/outbound-emails');
    expect(request!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEDGE\/\d{8}\/eu-west-1\/ses\/aws4_request, /);
    expect(request!.body).toMatchObject({
      FromEmailAddress: 'Example <no-reply@example.com>',
      Destination: { ToAddresses: ['ada@example.com'] },
      Content: { Simple: { Body: { Text: { Data: expect.stringContaining('https://app.example.com/reset-password#token=tok-edge') } } } },
    });
  });

  it('answers a refusal with MailRejectedError, as on Node', async () => {
    ses.failNext({ status: 400, type: 'MessageRejected' });
    const response = await miniflare.dispatchFetch('http://worker.test/?to=ada@example.com');
    expect(await response.json()).toEqual({ name: 'MailRejectedError', code: 'ERR_MAIL_REJECTED', reason: 'MessageRejected' });
  });
});

describe("the Worker's SES client", () => {
  it('needs a region and credentials from bindings when it talks to AWS', () => {
    expect(() => workerSesClientConfig({})).toThrow(ConfigError);
    expect(() => workerSesClientConfig({})).toThrow(/^AWS_REGION /);
    expect(() => workerSesClientConfig({ region: 'eu-west-1' })).toThrow(/^AWS_ACCESS_KEY_ID /);
    const credentials = { accessKeyId: 'AKID', secretAccessKey: 'secret' };
    expect(workerSesClientConfig({ region: 'eu-west-1', credentials })).toMatchObject({ region: 'eu-west-1', credentials, maxAttempts: 3, retryMode: 'standard' });
  });
});
