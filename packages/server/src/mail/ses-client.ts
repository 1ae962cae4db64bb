/**
 * The SES v2 client, configured like the DynamoDB client (packages/server/src/storage/dynamodb-client.ts). This
 * module is the only one that imports the SDK at run time, and ses-sender.ts imports it on the
 * first send: a function that never sends mail never loads it (the Lambda bundles put it in a
 * chunk of its own, read only then).
 */
import { SendEmailCommand, SESv2Client, type SendEmailCommandInput, type SESv2ClientConfig } from '@aws-sdk/client-sesv2';
import type { SesConnection } from './settings.js';
import { cachedPerConnection, connectionSettings } from '../shared/aws-connection.js';

/**
 * The SDK's `standard` retry, 3 attempts: throttling (TooManyRequestsException), 5xx and network
 * errors, with jittered backoff and a retry quota. A retried send that had in fact gone through
 * delivers the same mail twice, which for a link mail is harmless; a lost one costs the user a
 * new request.
 */
export const SES_RETRY_MODE = 'standard';
export const SES_MAX_ATTEMPTS = 3;

/**
 * Per attempt. SendEmail answers in well under a second; the request holding it (a reset, a
 * registration) should fail within seconds rather than wait: worst case 3 × 2 s + backoff.
 * `throwOnRequestTimeout`: without it the handler only logs a warning when the time passes.
 */
export const SES_CONNECTION_TIMEOUT_MS = 1_000;
export const SES_REQUEST_TIMEOUT_MS = 2_000;

export function sesClientConfig(connection: SesConnection): SESv2ClientConfig {
  return {
    retryMode: SES_RETRY_MODE,
    maxAttempts: SES_MAX_ATTEMPTS,
    // Options, not `new NodeHttpHandler(...)`: the SDK builds its own handler from them (also the
    // fetch handler of its browser build, on the edge), and we import no transitive package.
    requestHandler: { connectionTimeout: SES_CONNECTION_TIMEOUT_MS, requestTimeout: SES_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
    ...connectionSettings(connection),
  };
}

/** One client per container and configuration (packages/server/src/shared/aws-connection.ts). */
export const createSesClient: (connection: SesConnection) => SESv2Client = cachedPerConnection((connection) => new SESv2Client(sesClientConfig(connection)));

/** SendEmail; the message id SES assigned. */
export async function sendEmail(client: SESv2Client, input: SendEmailCommandInput): Promise<string | undefined> {
  const { MessageId } = await client.send(new SendEmailCommand(input));
  return MessageId;
}
