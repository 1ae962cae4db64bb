import { SESv2Client, type SESv2ClientConfig } from '@aws-sdk/client-sesv2';
import type { SesConnection } from '../../mail/settings.js';
import { sesClientConfig } from '../../mail/ses-client.js';
import { workerConnection } from './worker-connection.js';

/** The shared SES client settings, with the region and credentials a Worker binds. For createAccountMail's `sesClient` option. */
export function workerSesClientConfig(ses: SesConnection): SESv2ClientConfig {
  return workerConnection(sesClientConfig(ses), ses, ', nor PASSLANE_SES_IDENTITY_ARN, whose region SES would use');
}

export function createWorkerSesClient(ses: SesConnection): SESv2Client {
  return new SESv2Client(workerSesClientConfig(ses));
}
