import { Logger } from '@aws-lambda-powertools/logger';
import type { ApiLog } from '../api/api-host.js';
import { safeErrorFields } from './safe-error.js';

/**
 * One Powertools logger per container: JSON lines on stdout, level from POWERTOOLS_LOG_LEVEL
 * (default INFO). The middy stack adds the Lambda context and the API request id to each line.
 * Nothing logs request bodies, emails, passwords, hashes or tokens.
 */
export const logger = new Logger({ serviceName: 'passlane' });

/** The logger as the API's `ApiLog`: message, then the fields beside it on the same JSON line. */
export const apiLog: ApiLog = {
  info: (message, fields = {}) => logger.info(message, fields),
  warn: (message, fields = {}) => logger.warn(message, fields),
  error: (message, fields = {}) => logger.error(message, fields),
  safeError: safeErrorFields,
};
