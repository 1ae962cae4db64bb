/**
 * `npm start`'s console: one readable line per request (`12:04:05 POST /login 200 38 ms`) and per
 * log entry (`12:04:05 WARN mail not sent kind=password_reset reason=EACCES ...`), instead of the
 * JSON lines CloudWatch wants (Lambda keeps those: observability/logger.ts). It prints exactly the
 * fields the JSON line would hold, and those never hold a password, hash, token or email.
 */
import type { AuditEvent } from '../../accounts/audit-events.js';
import type { ApiLog } from '../../api/api-host.js';
import type { MailLog } from '../../mail/mail-sender.js';
import { safeErrorFields } from '../../observability/safe-error.js';
import type { RequestSummary } from './node-server.js';

export interface LocalLog {
  api: ApiLog;
  warn(message: string, fields?: Record<string, unknown>): void;
  audit(event: AuditEvent): void;
  mail: MailLog;
  /** The outbox's line (the file and the link), timed like the rest. */
  print(line: string): void;
  request(summary: RequestSummary): void;
}

export interface LocalLogOutput {
  /** INFO lines and requests (stdout). */
  out(line: string): void;
  /** WARN and ERROR lines (stderr). */
  err(line: string): void;
}

const CONSOLE: LocalLogOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };

export function createLocalLog(output: LocalLogOutput = CONSOLE, now: () => Date = () => new Date()): LocalLog {
  const time = () => now().toTimeString().slice(0, 8);
  const info = (message: string, fields: Record<string, unknown> = {}) => output.out(`${time()} ${message}${formatFields(fields)}`);
  const warn = (message: string, fields: Record<string, unknown> = {}) => output.err(`${time()} WARN ${message}${formatFields(fields)}`);
  const error = (message: string, fields: Record<string, unknown> = {}) => output.err(`${time()} ERROR ${message}${formatFields(fields)}${stackOf(fields)}`);
  return {
    api: { info, warn, error, safeError: safeErrorFields },
    warn,
    audit: ({ type, ...fields }) => info(type, fields),
    mail: { info, warn },
    print: (line) => output.out(`${time()} ${line}`),
    request: ({ method, route, status, ms }) => output.out(`${time()} ${method} ${route} ${status} ${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`),
  };
}

/**
 * ` key=value` pairs; text with spaces quoted; an error (safeErrorFields) as `Name: message <- cause`.
 * Without the request id, which on one developer's console only makes lines longer.
 */
function formatFields(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([key, value]) => value !== undefined && key !== 'requestId')
    .map(([key, value]) => ` ${key}=${formatValue(value)}`)
    .join('');
}

function formatValue(value: unknown): string {
  if (isErrorFields(value)) return JSON.stringify(describeError(value));
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

interface ErrorFields {
  name: string;
  message?: string;
  code?: string;
  stack?: string;
  cause?: ErrorFields;
}

function isErrorFields(value: unknown): value is ErrorFields {
  return typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string' && ('stack' in value || 'message' in value || 'cause' in value);
}

function describeError(error: ErrorFields): string {
  const self = `${error.name}${error.code && !error.message?.includes(error.code) ? ` ${error.code}` : ''}${error.message ? `: ${error.message}` : ''}`;
  return error.cause ? `${self} <- ${describeError(error.cause)}` : self;
}

/** An unhandled error's stack frames, indented under its line: on a developer's console they are what helps. */
function stackOf(fields: Record<string, unknown>): string {
  const error = Object.values(fields).find(isErrorFields);
  const frames = error?.stack?.split('\n').filter((line) => /^\s+at /.test(line));
  return frames && frames.length > 0 ? `\n${frames.map((line) => `    ${line.trim()}`).join('\n')}` : '';
}
