import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One Powertools logger per container: JSON lines on stdout, level from POWERTOOLS_LOG_LEVEL
 * (default INFO). The middy stack adds the Lambda context and the API request id to each line.
 * Nothing logs request bodies, emails, passwords, hashes or tokens.
 */
export const logger = new Logger({ serviceName: 'passlane' });
