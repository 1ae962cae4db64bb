/**
 * One question to a hook: the event (a Standard Webhooks payload: `type`, `timestamp`, `data`)
 * in, the answer's JSON object out, or a HookUnavailableError. The HTTPS and Lambda forms
 * (https-hook.ts, lambda-hook.ts) both are one.
 */
export type HookCaller = (event: HookEvent) => Promise<Record<string, unknown>>;

export interface HookEvent {
  /** `token.claims_requested`, `signup.requested`. */
  type: string;
  /** ISO 8601, when passlane asked. */
  timestamp: string;
  data: Record<string, unknown>;
}
