import type { SendEmailCommandInput, SESv2Client } from '@aws-sdk/client-sesv2';
import type { MailAddress, SesConnection, SesSettings } from './settings.js';
import { onceUntilFailure } from '../shared/once-until-failure.js';
import { MailRejectedError, MailUnavailableError, type MailError } from './errors.js';
import type { MailLog, MailSender, OutgoingMail } from './mail-sender.js';
import { formatMailbox, transportAddress } from './mime.js';

export interface SesMailSenderOptions {
  from: MailAddress;
  ses: SesSettings;
  log?: MailLog;
  /** Builds the client; default: ses-client.ts's, imported on the first send. The Worker passes its own (packages/server/src/runtimes/workers/ses-client.ts). */
  client?: (connection: SesConnection) => SESv2Client;
}

/** Amazon SES v2 SendEmail, Simple content: SES builds the MIME message from subject, text and HTML. */
export function createSesMailSender(options: SesMailSenderOptions): MailSender {
  // Dynamic: the SDK's SES client loads on the first send, not at the cold start of every function that wires mail.
  const sdk = onceUntilFailure(() => import('./ses-client.js'));
  const client = onceUntilFailure(async () => (options.client ?? (await sdk()).createSesClient)(options.ses));
  return {
    async send(mail) {
      const input = sendEmailInput(mail, options);
      const [{ sendEmail }, ses] = await Promise.all([sdk(), client()]);
      let messageId: string | undefined;
      try {
        messageId = await sendEmail(ses, input);
      } catch (error) {
        throw mailErrorFromSes(error);
      }
      options.log?.info('mail sent', { kind: mail.kind, transport: 'ses', messageId });
      return 'sent';
    },
  };
}

export function sendEmailInput(mail: OutgoingMail, options: Pick<SesMailSenderOptions, 'from' | 'ses'>): SendEmailCommandInput {
  const { identityArn, configurationSet } = options.ses;
  return {
    FromEmailAddress: formatMailbox(options.from),
    // Sending authorization: the identity IAM allows, also when the From address is one of its addresses.
    ...(identityArn !== undefined && { FromEmailAddressIdentityArn: identityArn }),
    Destination: { ToAddresses: [recipient(mail.to)] },
    Content: {
      Simple: {
        Subject: { Data: mail.subject, Charset: 'UTF-8' },
        Body: { Text: { Data: mail.text, Charset: 'UTF-8' }, Html: { Data: mail.html, Charset: 'UTF-8' } },
      },
    },
    ...(configurationSet !== undefined && { ConfigurationSetName: configurationSet }),
    // For event publishing (bounces and complaints per kind of mail); never the address.
    EmailTags: [{ Name: 'passlane-kind', Value: mail.kind }],
  };
}

function recipient(to: string): string {
  try {
    return transportAddress(to);
  } catch (error) {
    throw new MailRejectedError('InvalidRecipient', { cause: error, detail: 'the recipient is not a mail address' });
  }
}

/** Refusals that the same mail would meet again; anything else (throttling, 5xx, network, timeouts) may pass later. */
const REJECTED = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'BadRequestException',
  'NotFoundException',
  'AccountSuspendedException',
  'SendingPausedException',
  'AccessDeniedException',
]);

export function mailErrorFromSes(error: unknown): MailError {
  const name = error instanceof Error ? error.name : 'unknown';
  const code = (error as { code?: unknown } | null)?.code;
  // Node's network errors are plain `Error`s: their code (ECONNREFUSED, ...) says more.
  const reason = name === 'Error' && typeof code === 'string' ? code : name;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  const detail = `SES ${reason}${status === undefined ? '' : ` (HTTP ${status})`}`;
  return REJECTED.has(reason) ? new MailRejectedError(reason, { cause: error, detail }) : new MailUnavailableError(reason, { cause: error, detail });
}
