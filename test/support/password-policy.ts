/** The password rules as the wiring builds them by default (minimum 8, service `passlane`, the bundled blocklist, no breach check). */
import { loadBundledBlocklist } from '../../packages/server/src/features/password/rules/bundled-blocklist.js';
import { createPasswordPolicy, type PasswordPolicyOptions, type PasswordPolicy } from '../../packages/server/src/features/password/rules/policy.js';

export function defaultPasswordPolicy(options: Partial<PasswordPolicyOptions> = {}): PasswordPolicy {
  return createPasswordPolicy({ minLength: 8, serviceName: 'passlane', blocklist: loadBundledBlocklist, ...options });
}
