/** The code of a failed send (src/mail's typed errors carry one), for the audit event; never the message (it may name the address). */
export function mailFailureCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'ERR_MAIL';
}
