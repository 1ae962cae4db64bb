import { ConfigError } from '../../config/config-error.js';
import type { AwsConnection } from '../../shared/aws-connection.js';

/**
 * What Lambda gets for free and a Worker must bind: no AWS credential chain and no AWS_REGION of
 * its own, so both come from bindings (a local endpoint needs neither). The SDK's browser build
 * sends requests with `fetch` and signs them with Web Crypto.
 */
export function workerConnection<C extends { endpoint?: unknown }>(config: C, connection: AwsConnection, regionHelp = ''): C {
  if (config.endpoint !== undefined) return config;
  if (connection.region === undefined) throw new ConfigError('AWS_REGION', `is not set (a [vars] entry in wrangler.toml)${regionHelp}`);
  if (connection.credentials === undefined) {
    throw new ConfigError('AWS_ACCESS_KEY_ID', 'and AWS_SECRET_ACCESS_KEY must be set as Worker secrets');
  }
  return { ...config, region: connection.region, credentials: connection.credentials };
}
