/**
 * Vercel Cron's sweep of account events (features/events/README.md, "How each host gets its
 * events"): `GET /api/cron/passlane-events`, which a deployment's vercel.json schedules. Served by
 * the Vercel entry only, before the API's routes: no other host exposes a sweep over HTTP (the
 * Worker has its cron trigger, the long-lived hosts their own timer).
 *
 * Vercel Cron sends `Authorization: Bearer <CRON_SECRET>` when the project sets CRON_SECRET; the
 * route refuses any other request (401), and every request while CRON_SECRET is unset or shorter
 * than 16 characters (500, logged naming it): a sweep is a Scan of the table, billed per call, so
 * an open route would let anyone run up the bill. The header is compared as SHA-256 digests, in
 * constant time, so neither the time taken nor the length tells anything of the secret.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { constantTimeEqual, utf8 } from 'passlane/encoding';
import { UnauthenticatedError } from '../../accounts/errors.js';
import type { ApiLog } from '../../api/api-host.js';
import { respondToError } from '../../api/create-api.js';
import { HttpError } from '../../api/http-error.js';
import { jsonResponse, toWebResponse } from '../../api/responses.js';
import { readCronSecret } from '../../config/cron-secret-config.js';
import type { SweepResult } from '../../features/events/sweep-pending-events.js';
import { stringBindings, type WorkerEnv } from '../workers/worker-env.js';

export const CRON_SWEEP_PATH = '/api/cron/passlane-events';

export interface CronSweepOptions {
  /** The sweep itself (edge-events.ts's sweepEdgeEvents); undefined: no webhooks configured. */
  sweep: (env: WorkerEnv, options: { signal: AbortSignal }) => Promise<SweepResult | undefined>;
  log: ApiLog;
  /**
   * How long the sweep may go on before it stops between accounts and answers (the rest waits
   * for the next run): an Edge Function must start its answer within 25 s.
   */
  budgetMs: number;
}

export async function answerCronSweep(request: Request, env: WorkerEnv, options: CronSweepOptions): Promise<Response> {
  const fields = { route: CRON_SWEEP_PATH, requestId: request.headers.get('x-vercel-id') ?? undefined };
  try {
    if (request.method !== 'GET') throw new HttpError('method_not_allowed', 'use GET', { allow: 'GET' });
    const secret = readCronSecret(stringBindings(env));
    if (!sameDigest(request.headers.get('authorization') ?? '', `Bearer ${secret}`)) {
      throw new UnauthenticatedError('the event sweep is for Vercel Cron (Authorization: Bearer <CRON_SECRET>)');
    }
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), options.budgetMs);
    let result: SweepResult | undefined;
    try {
      result = await options.sweep(env, { signal: stop.signal });
    } finally {
      clearTimeout(timer);
    }
    if (result === undefined) return toWebResponse(jsonResponse(200, { swept: false, reason: 'no webhooks configured (PASSLANE_WEBHOOKS)' }));
    return toWebResponse(jsonResponse(200, { swept: true, complete: !stop.signal.aborted, ...result }));
  } catch (error) {
    return toWebResponse(respondToError(error, fields, options.log));
  }
}

function sameDigest(presented: string, expected: string): boolean {
  return constantTimeEqual(sha256(utf8(presented)), sha256(utf8(expected)));
}
