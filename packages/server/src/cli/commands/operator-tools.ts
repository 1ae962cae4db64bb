import type { AuditEvent } from '../../accounts/audit-events.js';
import { text } from '../../config/env.js';
import type { AccountLifecycleDependencies } from '../../features/account/dependencies.js';
import { createAccountMail } from '../../mail/account-mail.js';
import { loadSecrets } from '../../runtimes/lambda/load-secrets.js';
import type { StorageConfig } from '../../storage/settings.js';
import { buildAccountLifecycleDependencies } from '../../wiring/build-dependencies.js';
import { openBulkTools } from './bulk-tools.js';
import { describeFailure, writeLine, type CommandIo } from './command-io.js';

export interface OperatorTools {
  deps: AccountLifecycleDependencies;
  storage: Pick<StorageConfig, 'endpoint' | 'table'>;
  /** Destroys the DynamoDB client. */
  close(): void;
}

/**
 * What `passlane users` acts with: the server's table, stores and mails, as the API's operator
 * routes have them, on the operator's own AWS credentials. Secrets may be named as SSM parameters
 * (`PASSLANE_FINGERPRINT_KEY_PARAMETER`, read with those credentials) or given. Audit events and
 * mail lines go to stderr as JSON lines, so stdout stays the command's output. Undefined, after
 * saying why on stderr, when the configuration is unusable.
 */
export async function openOperatorTools(io: CommandIo, command: string, options: { mails: boolean }): Promise<OperatorTools | undefined> {
  let env;
  try {
    env = await loadSecrets(io.env, async () => (await import('../../runtimes/lambda/ssm-secret-source.js')).createSsmSecretSource());
  } catch (error) {
    writeLine(io.stderr, `passlane ${command}: ${describeFailure(error)}`);
    return undefined;
  }
  // An account's sessions, factors and links are keyed by its email's fingerprint: with another
  // key than the server's, every action would miss them and report success. A key made up on
  // this machine is right only for the table `npm start` runs here.
  if (text(env, 'PASSLANE_FINGERPRINT_KEY') === undefined && text(env, 'DYNAMODB_ENDPOINT') === undefined) {
    writeLine(
      io.stderr,
      `passlane ${command}: PASSLANE_FINGERPRINT_KEY is not set: give the server's (or PASSLANE_FINGERPRINT_KEY_PARAMETER, its SSM parameter, e.g. /passlane/<stage>/fingerprint-key): ` +
        "the account's sessions, factors and links are keyed by it.",
    );
    return undefined;
  }
  const tools = openBulkTools({ ...io, env }, command);
  if (tools === undefined) return undefined;
  const { config, client } = tools;
  // The outbox is a developer's: against AWS's table it would keep the owner's mail on this machine and say it went.
  if (options.mails && config.mail.transport === 'outbox' && config.storage.endpoint === undefined) {
    client.destroy();
    writeLine(
      io.stderr,
      `passlane ${command}: mails the owner, and PASSLANE_MAIL_TRANSPORT is outbox (files on this machine): set PASSLANE_MAIL_TRANSPORT=ses with the server's ` +
        'PASSLANE_MAIL_FROM and PASSLANE_APP_URL (infra/README.md, "Sending mail"), or none to send nothing. Nothing was changed.',
    );
    return undefined;
  }
  const stderrLine = (level: string, message: string, fields?: Record<string, unknown>) =>
    writeLine(io.stderr, JSON.stringify({ level, service: 'passlane', message, ...fields }));
  const audit = (event: AuditEvent) => {
    const { type, ...fields } = event;
    stderrLine('INFO', type, { audit: true, ...fields });
  };
  try {
    const log = { info: (message: string, fields?: Record<string, unknown>) => stderrLine('INFO', message, fields), warn: (message: string, fields?: Record<string, unknown>) => stderrLine('WARN', message, fields) };
    const platform = { ...tools.platform, audit, mail: { ...tools.platform.mail, log } };
    const deps: AccountLifecycleDependencies = {
      ...(await buildAccountLifecycleDependencies(config, platform)),
      // The outbox (a local table's mails) names the file on stderr, not the link: the operator asked for a mail to the owner, not for its token.
      mail: createAccountMail(config.mail, { ...platform.mail, print: (line) => writeLine(io.stderr, line.split('; link: ')[0]) }),
    };
    return { deps, storage: config.storage, close: () => client.destroy() };
  } catch (error) {
    client.destroy();
    writeLine(io.stderr, `passlane ${command}: ${describeFailure(error)}`);
    return undefined;
  }
}
