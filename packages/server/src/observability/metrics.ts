import { Metrics } from '@aws-lambda-powertools/metrics';
import { logger } from './logger.js';

/**
 * CloudWatch metrics as EMF lines on stdout, flushed by the logMetrics middleware after each
 * invocation (no API calls, so nothing to fail or slow a login). Disabled with
 * POWERTOOLS_METRICS_DISABLED=true (the local server does so) or POWERTOOLS_DEV=true.
 *
 * Metrics' own warnings go to our logger at DEBUG: it warns "No application metrics to publish"
 * on every request that produced no audit event (a 400, the JWKS), which is expected here.
 */
export const metrics = new Metrics({
  namespace: 'passlane',
  serviceName: 'passlane',
  logger: {
    debug: (...content: unknown[]) => logger.debug(String(content[0])),
    info: (...content: unknown[]) => logger.debug(String(content[0])),
    warn: (...content: unknown[]) => logger.debug(String(content[0])),
    error: (...content: unknown[]) => logger.error(String(content[0])),
  },
});
