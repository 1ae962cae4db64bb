/**
 * `passlane check-password [--email E] < password`: the verdict the service would give a new
 * password (src/passwords), for scripts and support staff, with the same settings
 * (PASSLANE_PASSWORD_MIN_LENGTH, PASSLANE_SERVICE_NAME, PASSLANE_BREACH_CHECK*). Prints one JSON
 * line, never the password: `{"ok":true,"breachCheck":"off"}` or
 * `{"ok":false,"reason":"common","message":"..."}`. Exit 0 accepted, 1 refused, 2 a bad
 * setting or a breach check that failed closed.
 */
import { readPasswordConfig } from '../../config/password-config.js';
import { canonicalEmail } from '../../accounts/canonical-email.js';
import { buildPasswordPolicy } from '../../wiring/build-dependencies.js';
import { nodePlatform } from '../../runtimes/node/node-platform.js';

export async function checkPasswordCommand(password: string, options: { email?: string; env: Record<string, string | undefined> }): Promise<{ line: string; code: number }> {
  const email = options.email === undefined ? undefined : canonicalEmail(options.email);
  const policy = buildPasswordPolicy({ passwords: readPasswordConfig(options.env) }, nodePlatform);
  const verdict = await policy.check(password, email === undefined ? {} : { email });
  if (verdict.ok) return { line: JSON.stringify({ ok: true, breachCheck: verdict.breachCheck }), code: 0 };
  return { line: JSON.stringify({ ok: false, reason: verdict.reason, message: verdict.message }), code: 1 };
}
