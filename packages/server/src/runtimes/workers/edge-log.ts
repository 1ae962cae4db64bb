import type { ApiLog } from '../../api/api-host.js';
import { safeErrorFields } from '../../observability/safe-error.js';
import type { AuditEvent } from '../../accounts/audit-events.js';

/**
 * One JSON line per entry on the console, which Workers Logs and `wrangler tail` collect
 * (Powertools needs Node). Callers pass codes, statuses, userIds and fingerprints only: never
 * passwords, hashes, tokens or emails; errors go through safeErrorFields.
 */
type Level = 'INFO' | 'WARN' | 'ERROR';

export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, service: 'passlane-edge', message, ...fields });
  if (level === 'ERROR') console.error(line);
  else if (level === 'WARN') console.warn(line);
  else console.log(line);
}

/** The audit sink of the Worker and Vercel Edge: the events are built to be logged as they are. */
export function auditToLog(event: AuditEvent): void {
  const { type, ...fields } = event;
  log('INFO', type, { audit: true, ...fields });
}

/** The same lines as the API's log. */
export const edgeLog: ApiLog = {
  info: (message, fields) => log('INFO', message, fields),
  warn: (message, fields) => log('WARN', message, fields),
  error: (message, fields) => log('ERROR', message, fields),
  safeError: safeErrorFields,
};
