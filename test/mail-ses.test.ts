/**
 * The SES sender through the real SDK (SESv2Client, SendEmailCommand) against a local endpoint
 * that captures the requests: the wire shape of SendEmail, the signature, and how SES's answers
 * become MailUnavailableError (worth trying later) or MailRejectedError (will not pass).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { createAccountMail, type MailWiringOptions } from '../packages/server/src/mail/account-mail.js';
import { MailConfigError, MailRejectedError, MailUnavailableError } from '../packages/server/src/mail/errors.js';
import { DEFAULT_APP_PATHS, DEFAULT_SERVICE_NAME, type MailConfig } from '../packages/server/src/mail/settings.js';
import { safeErrorFields } from '../packages/server/src/observability/safe-error.js';
import { startSesCapture, type SesCapture } from './support/ses-capture.js';

const ADDRESS = 'ada@example.com';
const IDENTITY = 'arn:aws:ses:eu-west-1:123456789012:identity/example.com';

let ses: SesCapture;
let logged: string[];

beforeAll(async () => {
  ses = await startSesCapture();
});
afterAll(() => ses?.stop());
beforeEach(() => {
  ses.reset();
  logged = [];
});

const log: MailWiringOptions['log'] = { info: (message, fields) => logged.push(JSON.stringify({ message, ...fields })) };

function sesMail(env: Record<string, string> = {}) {
  const config = readConfig({
    PASSLANE_MAIL_TRANSPORT: 'ses',
    PASSLANE_MAIL_FROM: 'Example <no-reply@example.com>',
    PASSLANE_APP_URL: 'https://app.example.com',
    PASSLANE_SERVICE_NAME: 'Example',
    PASSLANE_SES_ENDPOINT: ses.endpoint,
    PASSLANE_SES_IDENTITY_ARN: IDENTITY,
    ...env,
  });
  return createAccountMail(config.mail, { log });
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return expect.fail('expected the send to fail');
}

describe('SES sender (real SDK, local endpoint)', () => {
  it('sends one SendEmail: sender, identity, recipient, subject, text and HTML, signed', async () => {
    await sesMail({ PASSLANE_SES_CONFIGURATION_SET: 'passlane-events' }).passwordReset(ADDRESS, 'tok-123', 3600);

    expect(ses.requests).toHaveLength(1);
    const [request] = ses.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/v2/email/outbound-emails');
    expect(request!.headers['content-type']).toBe('application/json');
    // SigV4 for SES in the identity's region (not Lambda's), with the local stand-in credentials.
    expect(request!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/eu-west-1\/ses\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/);
    const link = 'https://app.example.com/reset-password#token=tok-123';
    expect(request!.body).toEqual({
      FromEmailAddress: 'Example <no-reply@example.com>',
      FromEmailAddressIdentityArn: IDENTITY,
      Destination: { ToAddresses: [ADDRESS] },
      ConfigurationSetName: 'passlane-events',
      EmailTags: [{ Name: 'passlane-kind', Value: 'password_reset' }],
      Content: {
        Simple: {
          Subject: { Data: 'Reset your Example password', Charset: 'UTF-8' },
          Body: { Text: { Data: expect.stringContaining(`\n${link}\n`), Charset: 'UTF-8' }, Html: { Data: expect.stringContaining(`<a href="${link}">`), Charset: 'UTF-8' } },
        },
      },
    });
    expect(request!.body.Content?.Simple?.Body?.Text?.Data).toContain('1 hour');
    expect(logged).toEqual([JSON.stringify({ message: 'mail sent', kind: 'password_reset', transport: 'ses', messageId: 'local-message-1' })]);
  });

  it('leaves the identity and configuration set out when they are not configured', async () => {
    const config = readConfig({ PASSLANE_MAIL_TRANSPORT: 'ses', PASSLANE_MAIL_FROM: 'no-reply@example.com', PASSLANE_APP_URL: 'https://app.example.com', PASSLANE_SES_ENDPOINT: ses.endpoint, AWS_REGION: 'us-east-1' });
    await createAccountMail(config.mail).registrationAttempt(ADDRESS);
    const { body, headers } = ses.requests[0]!;
    expect(Object.keys(body).sort()).toEqual(['Content', 'Destination', 'EmailTags', 'FromEmailAddress']);
    expect(body.FromEmailAddress).toBe('no-reply@example.com');
    expect(body.Content?.Simple?.Body?.Text?.Data).toContain('https://app.example.com/sign-in\n');
    expect(headers.authorization).toContain('/us-east-1/ses/aws4_request');
  });

  it('encodes what SES wants in ASCII: a non-ASCII sender name (RFC 2047), an IDN domain (punycode)', async () => {
    await sesMail({ PASSLANE_MAIL_FROM: 'Zürich Konto <no-reply@example.com>' }).emailVerification('jörg@bücher.example', 'tok', 86_400);
    const { body } = ses.requests[0]!;
    expect(body.FromEmailAddress).toBe(`=?UTF-8?B?${Buffer.from('Zürich Konto').toString('base64')}?= <no-reply@example.com>`);
    expect(body.Destination?.ToAddresses).toEqual(['jörg@xn--bcher-kva.example']);
    expect(body.Content?.Simple?.Body?.Text?.Data).toContain('https://app.example.com/verify-email#token=tok\n');
    expect(body.Content?.Simple?.Body?.Text?.Data).toContain('24 hours');
  });

  it('retries a 5xx, then throws MailUnavailableError', async () => {
    ses.failNext(...Array.from({ length: 3 }, () => ({ status: 500, type: 'InternalServiceErrorException' })));
    const error = await failure(() => sesMail().passwordReset(ADDRESS, 'tok', 3600));
    expect(error).toBeInstanceOf(MailUnavailableError);
    expect(error).toMatchObject({ code: 'ERR_MAIL_UNAVAILABLE', reason: 'InternalServiceErrorException' });
    expect((error as Error).message).toBe('mail could not be sent now: SES InternalServiceErrorException (HTTP 500)');
    expect(ses.requests).toHaveLength(3);
  });

  it('gets through after throttling (429) within the retries', async () => {
    ses.failNext({ status: 429, type: 'TooManyRequestsException' });
    await sesMail().passwordReset(ADDRESS, 'tok', 3600);
    expect(ses.requests).toHaveLength(2);
  });

  it('does not retry a 400 MessageRejected: MailRejectedError, the address in no message that gets logged', async () => {
    // What the SES sandbox answers for an unverified recipient: it names the address.
    ses.failNext({ status: 400, type: 'MessageRejected', message: `Email address is not verified. The following identities failed the check in region EU-WEST-1: ${ADDRESS}` });
    const error = await failure(() => sesMail().passwordReset(ADDRESS, 'tok', 3600));
    expect(error).toBeInstanceOf(MailRejectedError);
    expect(error).toMatchObject({ code: 'ERR_MAIL_REJECTED', reason: 'MessageRejected' });
    expect(ses.requests).toHaveLength(1);
    expect((error as Error).message).not.toContain(ADDRESS);
    expect(JSON.stringify(safeErrorFields(error))).not.toContain(ADDRESS);
    // SES's own error stays as the cause, for a debugger.
    expect(((error as Error).cause as Error).name).toBe('MessageRejected');
  });

  it.each([
    ['MailFromDomainNotVerifiedException', 400, MailRejectedError, 1],
    ['SendingPausedException', 400, MailRejectedError, 1],
    ['AccessDeniedException', 403, MailRejectedError, 1],
    ['NotFoundException', 404, MailRejectedError, 1],
    // A sending quota: the SDK counts it as throttling and retries it too.
    ['LimitExceededException', 400, MailUnavailableError, 3],
  ])('maps %s (HTTP %i) to %O after %i request(s)', async (type, status, expected, attempts) => {
    ses.failNext(...Array.from({ length: 3 }, () => ({ status, type })));
    const error = await failure(() => sesMail().registrationAttempt(ADDRESS));
    expect(error).toBeInstanceOf(expected);
    expect(error).toMatchObject({ reason: type });
    expect(ses.requests).toHaveLength(attempts);
  });

  it('throws MailUnavailableError when SES cannot be reached', async () => {
    const closed = await startSesCapture();
    await closed.stop();
    const config = readConfig({ PASSLANE_MAIL_TRANSPORT: 'ses', PASSLANE_MAIL_FROM: 'no-reply@example.com', PASSLANE_APP_URL: 'https://app.example.com', PASSLANE_SES_ENDPOINT: closed.endpoint });
    const error = await failure(() => createAccountMail(config.mail).passwordReset(ADDRESS, 'tok', 3600));
    expect(error).toBeInstanceOf(MailUnavailableError);
    expect(error).toMatchObject({ reason: 'ECONNREFUSED' });
  });

  it('refuses a recipient that is not one address before sending anything', async () => {
    const error = await failure(() => sesMail().passwordReset('ada@example.com, eve@example.com', 'tok', 3600));
    expect(error).toBeInstanceOf(MailRejectedError);
    expect(ses.requests).toHaveLength(0);
  });
});

describe('mail wiring', () => {
  it('refuses to wire SES without a sender or an app URL, naming the variable', () => {
    const wire = (env: Record<string, string>) => () => createAccountMail(readConfig({ PASSLANE_MAIL_TRANSPORT: 'ses', ...env }).mail);
    expect(wire({ PASSLANE_APP_URL: 'https://app.example.com' })).toThrow(MailConfigError);
    expect(wire({ PASSLANE_APP_URL: 'https://app.example.com' })).toThrow(/^PASSLANE_MAIL_FROM /);
    expect(wire({ PASSLANE_MAIL_FROM: 'no-reply@example.com' })).toThrow(/^PASSLANE_APP_URL /);
  });

  it('takes its settings in code, without the environment, and names the one missing', async () => {
    const settings: MailConfig = {
      transport: 'ses',
      from: { address: 'no-reply@example.com', name: 'Example' },
      appUrl: 'https://app.example.com',
      paths: DEFAULT_APP_PATHS,
      serviceName: DEFAULT_SERVICE_NAME,
      outboxDir: '/nowhere',
      ses: { endpoint: ses.endpoint, region: 'eu-west-1' },
    };
    await createAccountMail(settings).passwordReset(ADDRESS, 'tok', 3600);
    expect(ses.requests).toHaveLength(1);
    const { from: _from, ...withoutFrom } = settings;
    const error = failureOf(() => createAccountMail(withoutFrom));
    expect(error).toBeInstanceOf(MailConfigError);
    expect(error).toMatchObject({ code: 'ERR_MAIL_CONFIG', setting: 'from' });
    // Logged with its message, as a ConfigError is: it holds no address.
    expect(safeErrorFields(error).message).toMatch(/^PASSLANE_MAIL_FROM is not set/);
    expect(failureOf(() => createAccountMail({ ...settings, appUrl: undefined }))).toMatchObject({ setting: 'appUrl' });
  });

  it('with transport none sends nothing and logs only the kind', async () => {
    const mail = createAccountMail(readConfig({ PASSLANE_MAIL_TRANSPORT: 'none' }).mail, { log });
    await mail.passwordReset(ADDRESS, 'tok', 3600);
    expect(logged).toEqual([JSON.stringify({ message: 'mail not sent: PASSLANE_MAIL_TRANSPORT is none', kind: 'password_reset' })]);
  });

  it('loads the SES SDK only on the first send: no src/mail module but ses-client.ts imports it at run time', async () => {
    const dir = fileURLToPath(new URL('../packages/server/src/mail/', import.meta.url));
    const runtimeImports = [];
    for (const name of await readdir(dir)) {
      if (!name.endsWith('.ts')) continue;
      const source = await readFile(join(dir, name), 'utf8');
      if (/^import (?!type )[^;]*from '@aws-sdk\//m.test(source)) runtimeImports.push(name);
    }
    expect(runtimeImports).toEqual(['ses-client.ts']);
  });
});

function failureOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}
