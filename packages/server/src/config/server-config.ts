import { text, wholeNumber, type Env } from './env.js';

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
}

export const DEFAULT_DATA_DIR = '.data';

/** For the long-lived servers: `npm start`, Deno and Bun. */
export function readServerConfig(env: Env): ServerConfig {
  return {
    port: wholeNumber(env, 'PORT', { fallback: 3000, min: 0, max: 65_535 }),
    host: text(env, 'HOST') ?? '127.0.0.1',
    dataDir: readDataDir(env),
    dynamoDbPort: wholeNumber(env, 'DYNAMODB_PORT', { fallback: 8000, min: 0, max: 65_535 }),
    dynamoDbEndpoint: text(env, 'DYNAMODB_ENDPOINT'),
  };
}

/** PASSLANE_DATA_DIR (.data): the embedded dynalite's files and the locally generated keys. */
export function readDataDir(env: Env): string {
  return text(env, 'PASSLANE_DATA_DIR') ?? DEFAULT_DATA_DIR;
}
