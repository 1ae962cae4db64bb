/**
 * Why a request to a Worker under Miniflare failed, from its answer and its console: workerd
 * alone answers a bare 500, and bench:worker (worker-hash.ts) once failed for weeks with nothing
 * more than "register answered 500". Pure.
 */

/** One line of the Worker's console, as Miniflare's `handleStructuredLogs` hands it over. */
export interface WorkerLog {
  level: string;
  message: string;
}

/** A log line, short: Powertools' JSON as level, message, route and the error's name and message (no stack). */
export function describeWorkerLog({ level, message }: WorkerLog): string {
  try {
    const line = JSON.parse(message) as { level?: string; message?: string; route?: string; error?: { name?: string; message?: string } };
    const error = line.error ? `: ${line.error.name ?? 'Error'}: ${line.error.message ?? ''}` : '';
    return `${line.level ?? level} ${line.message ?? ''}${line.route ? ` (${line.route})` : ''}${error}`.slice(0, 400);
  } catch {
    return `${level}: ${message}`.slice(0, 400);
  }
}

/**
 * A failed answer as an Error: the status, the body's error code, and the Worker's last error
 * lines (its last lines when none is an error). The Worker logs no password, hash or raw email.
 */
export async function workerFailure(what: string, response: { status: number; text(): Promise<string> }, logs: readonly WorkerLog[]): Promise<Error> {
  let code = '';
  try {
    code = (JSON.parse(await response.text()) as { code?: string }).code ?? '';
  } catch {
    // Not JSON (workerd's own error page): the logs tell more.
  }
  const errors = logs.filter((log) => log.level === 'error' || log.message.includes('"level":"ERROR"'));
  const lines = (errors.length > 0 ? errors : logs).slice(-5).map((log) => `  Worker log: ${describeWorkerLog(log)}`);
  return new Error([`${what} answered ${response.status}${code ? ` (${code})` : ''}`, ...(lines.length > 0 ? lines : ['  (the Worker logged nothing)'])].join('\n'));
}
