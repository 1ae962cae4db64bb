import { oneOf, text, wholeNumber, type Env } from './env.js';

export interface ServerConfig {
  /** PORT (3000); 0 picks a free port. */
  port: number;
  /** HOST (127.0.0.1): loopback unless asked, since a local server has a generated signing key. */
  host: string;
  /** PASSLANE_DATA_DIR (.data): the embedded dynalite's files and the local signing key. */
  dataDir: string;
  /** DYNAMODB_PORT (8000): the embedded dynalite's port; 0 picks a free port. */
  dynamoDbPort: number;
  /** DYNAMODB_ENDPOINT: use this server instead of the embedded dynalite. */
  dynamoDbEndpoint?: string;
  /** PASSLANE_LOG_FORMAT: `text` (npm start's default: a readable line per request) or `json` (Lambda's lines). */
  logFormat?: 'text' | 'json';
}

export const DEFAULT_DATA_DIR = '.data';

/** For the long-lived servers: `npm start`, Deno and Bun. */
export function readServerConfig(env: Env): ServerConfig {
  return {
    ...readListenAddress(env),
    dataDir: readDataDir(env),
    dynamoDbPort: wholeNumber(env, 'DYNAMODB_PORT', { fallback: 8000, min: 0, max: 65_535 }),
    dynamoDbEndpoint: text(env, 'DYNAMODB_ENDPOINT'),
    logFormat: oneOf(env, 'PASSLANE_LOG_FORMAT', ['text', 'json']),
  };
}

/** PASSLANE_DATA_DIR (.data): the embedded dynalite's files and the locally generated keys. */
export function readDataDir(env: Env): string {
  return text(env, 'PASSLANE_DATA_DIR') ?? DEFAULT_DATA_DIR;
}

/** PORT (3000) and HOST (127.0.0.1). */
export function readListenAddress(env: Env): Pick<ServerConfig, 'port' | 'host'> {
  return { port: wholeNumber(env, 'PORT', { fallback: 3000, min: 0, max: 65_535 }), host: text(env, 'HOST') ?? '127.0.0.1' };
}

/**
 * Where a browser on this machine reaches a server listening on `host`:`port`: localhost for a
 * loopback or wildcard host (what a developer types, and what the mails link to by default),
 * else the host itself.
 */
export function localServerUrl(host: string, port: number): string {
  const local = /^(127\.\d+\.\d+\.\d+|::1?|0\.0\.0\.0|localhost|\[::1?\])$/i.test(host);
  const name = local ? 'localhost' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
