import { SESv2Client, type SESv2ClientConfig } from '@aws-sdk/client-sesv2';
import { ConfigError } from '../src/config/config-error.js';
import type { SesConnection } from '../src/config/mail-config.js';
import { sesClientConfig } from '../src/mail/ses-client.js';

/**
 * The shared SES client settings (retries, timeouts, local endpoint), plus what Lambda gets for
 * free, as for DynamoDB (dynamodb-client.ts here): no credential chain and no AWS_REGION on a
 * Worker, so both come from bindings. The SDK's browser build sends with `fetch` and signs with
 * Web Crypto. For createAccountMail's `sesClient` option.
 */
export function workerSesClientConfig(ses: SesConnection): SESv2ClientConfig {
  const config = sesClientConfig(ses);
  if (config.endpoint !== undefined) return config;
  if (ses.region === undefined) throw new ConfigError('AWS_REGION', 'is not set (a [vars] entry in wrangler.toml), nor PASSLANE_SES_IDENTITY_ARN, whose region SES would use');
  if (ses.credentials === undefined) {
    throw new ConfigError('AWS_ACCESS_KEY_ID', 'and AWS_SECRET_ACCESS_KEY must be set as Worker secrets');
  }
  return { ...config, region: ses.region, credentials: ses.credentials };
}

export function createWorkerSesClient(ses: SesConnection): SESv2Client {
  return new SESv2Client(workerSesClientConfig(ses));
}
