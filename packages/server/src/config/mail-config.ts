import { DEFAULT_APP_PATHS, DEFAULT_SERVICE_NAME, MAIL_TRANSPORTS, type MailAddress, type MailConfig, type MailTransport, type SesSettings } from '../mail/settings.js';
import { ConfigError } from './config-error.js';
import { oneOf, readOnLambda, text, type Env } from './env.js';
import { localServerUrl, readDataDir, readListenAddress } from './server-config.js';
import { readStorageConfig } from './storage-config.js';

/**
 * Format only: settings a transport needs but that are missing (PASSLANE_MAIL_FROM, PASSLANE_APP_URL
 * with SES) are refused where mail is wired (mail/account-mail.ts), so functions that never send start without them.
 */
export function readMailConfig(env: Env): MailConfig {
  const onLambda = readOnLambda(env);
  const transport = oneOf(env, 'PASSLANE_MAIL_TRANSPORT', MAIL_TRANSPORTS) ?? (onLambda ? 'ses' : 'outbox');
  // The outbox prints every link (with its token) on the console: in CloudWatch that is a leak.
  if (transport === 'outbox' && onLambda) {
    throw new ConfigError('PASSLANE_MAIL_TRANSPORT', "must be ses or none on AWS Lambda (the outbox is for a developer's machine)");
  }
  const appUrl = text(env, 'PASSLANE_APP_URL');
  const config: MailConfig = {
    transport,
    appUrl: appUrl === undefined ? (transport === 'ses' ? undefined : readLocalAppUrl(env)) : readAppUrl(appUrl, transport),
    paths: {
      passwordReset: readPath(env, 'PASSLANE_APP_PASSWORD_RESET_PATH', DEFAULT_APP_PATHS.passwordReset),
      emailVerification: readPath(env, 'PASSLANE_APP_EMAIL_VERIFICATION_PATH', DEFAULT_APP_PATHS.emailVerification),
      signIn: readPath(env, 'PASSLANE_APP_SIGN_IN_PATH', DEFAULT_APP_PATHS.signIn),
      deviceApproval: readPath(env, 'PASSLANE_APP_DEVICE_APPROVAL_PATH', DEFAULT_APP_PATHS.deviceApproval),
      factorUndo: readPath(env, 'PASSLANE_APP_FACTOR_UNDO_PATH', DEFAULT_APP_PATHS.factorUndo),
      emailChange: readPath(env, 'PASSLANE_APP_EMAIL_CHANGE_PATH', DEFAULT_APP_PATHS.emailChange),
      emailChangeUndo: readPath(env, 'PASSLANE_APP_EMAIL_CHANGE_UNDO_PATH', DEFAULT_APP_PATHS.emailChangeUndo),
    },
    serviceName: readServiceName(env),
    outboxDir: `${readDataDir(env).replace(/[/\\]+$/, '')}/outbox`,
    ses: readSesSettings(env),
  };
  const from = text(env, 'PASSLANE_MAIL_FROM');
  if (from !== undefined) config.from = readMailAddress(from);
  const templateDir = text(env, 'PASSLANE_MAIL_TEMPLATE_DIR');
  if (templateDir !== undefined) config.templateDir = templateDir;
  return config;
}

/**
 * Without PASSLANE_APP_URL (and away from SES) the mails link to the server itself, on the port
 * it listens on: `npm start` serves pages there that take the links (runtimes/node/local-pages.ts).
 */
export function readLocalAppUrl(env: Env): string {
  const { host, port } = readListenAddress(env);
  return localServerUrl(host, port);
}

/** PASSLANE_SERVICE_NAME (passlane): how mails (and anything else user-facing) name the service; one line of text. */
export function readServiceName(env: Env): string {
  const value = text(env, 'PASSLANE_SERVICE_NAME');
  if (value === undefined) return DEFAULT_SERVICE_NAME;
  // A control character would break a Subject header; the length keeps subjects readable.
  if (value.length > 100 || /\p{Cc}/u.test(value)) throw new ConfigError('PASSLANE_SERVICE_NAME', 'must be one line of at most 100 characters');
  return value;
}

/** `address` or `Display Name <address>` (the name may be quoted). No control characters: it becomes a header. */
export function readMailAddress(value: string, variable = 'PASSLANE_MAIL_FROM'): MailAddress {
  const match = /^(?:(.*?)\s*<([^<>\s]+)>|([^<>\s]+))$/.exec(value);
  const address = match?.[2] ?? match?.[3];
  if (match === null || address === undefined || !/^[^@\s"(),:;<>[\\\]]+@[^@\s"(),:;<>[\\\]]+$/.test(address) || /\p{Cc}/u.test(value)) {
    throw new ConfigError(variable, `must be an address or "Name <address>" (got ${JSON.stringify(value)})`);
  }
  const name = match[1]?.replace(/^"(.*)"$/, '$1').trim();
  return name ? { address, name } : { address };
}

function readSesSettings(env: Env): SesSettings {
  const { region, credentials } = readStorageConfig(env);
  const ses: SesSettings = {};
  const endpoint = text(env, 'PASSLANE_SES_ENDPOINT');
  if (endpoint !== undefined) ses.endpoint = readEndpoint(endpoint);
  const identityArn = text(env, 'PASSLANE_SES_IDENTITY_ARN');
  // An identity lives in one region and SES sends as it only from there, which may not be Lambda's own.
  const sesRegion = identityArn === undefined ? region : readIdentityRegion(identityArn);
  if (sesRegion !== undefined) ses.region = sesRegion;
  if (credentials !== undefined) ses.credentials = credentials;
  if (identityArn !== undefined) ses.identityArn = identityArn;
  const configurationSet = text(env, 'PASSLANE_SES_CONFIGURATION_SET');
  // SES's own rule for configuration set names.
  if (configurationSet !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(configurationSet)) {
    throw new ConfigError('PASSLANE_SES_CONFIGURATION_SET', `must be 1 to 64 letters, digits, _ or - (got ${JSON.stringify(configurationSet)})`);
  }
  if (configurationSet !== undefined) ses.configurationSet = configurationSet;
  return ses;
}

/**
 * An http(s) URL without query, fragment or credentials (the links append a path and
 * `#token=`). With SES it must be https: a token sent over plain http can be read on the way.
 * Loopback hosts are exempt, for local apps and tests.
 */
function readAppUrl(value: string, transport: MailTransport): string {
  const fail = (why: string) => new ConfigError('PASSLANE_APP_URL', `${why} (got ${JSON.stringify(value)})`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fail('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail('must be an absolute http(s) URL');
  if (url.search !== '' || value.includes('#') || url.username !== '' || url.password !== '') {
    throw fail('must have no query, fragment or credentials (the links add a path and #token=)');
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (transport === 'ses' && url.protocol !== 'https:' && !loopback) throw fail('must be https when mail goes out through SES');
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function readPath(env: Env, name: string, fallback: string): string {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^\/[^\s#]*$/.test(value)) throw new ConfigError(name, `must start with / and hold no spaces or # (got ${JSON.stringify(value)})`);
  return value;
}

function readEndpoint(value: string): string {
  try {
    const { protocol } = new URL(value);
    if (protocol === 'http:' || protocol === 'https:') return value;
  } catch {
    // refused below
  }
  throw new ConfigError('PASSLANE_SES_ENDPOINT', `must be an http(s) URL (got ${JSON.stringify(value)})`);
}

function readIdentityRegion(arn: string): string {
  const region = /^arn:aws[a-z-]*:ses:([a-z0-9-]+):\d{12}:identity\/\S+$/.exec(arn)?.[1];
  if (region === undefined) {
    throw new ConfigError('PASSLANE_SES_IDENTITY_ARN', `must be an SES identity ARN, arn:aws:ses:<region>:<account>:identity/<domain or address> (got ${JSON.stringify(arn)})`);
  }
  return region;
}
