import type { PasswordHasher } from '../hashing/create-password-hasher.js';
import type { AccountStore } from '../storage/account-store.js';
import type { RateLimitStore } from '../storage/rate-limit-store.js';
import type { AuditEvent } from './audit-events.js';

/** The token operations the use-cases need; the jose-based service in src/tokens provides them. */
export interface AccessTokens {
  issue(input: { userId: string; now?: Date }): Promise<{ accessToken: string; tokenType: 'Bearer'; expiresIn: number }>;
  verify(token: string): Promise<{ userId: string; issuedAt: Date }>;
}

export interface LoginRateLimits {
  perAccount: number;
  perIp: number;
  windowSeconds: number;
}

/** Everything the use-cases touch, passed in: no globals, so Lambda, the local server and the edge share them. */
export interface AuthDependencies {
  hasher: PasswordHasher;
  users: Pick<AccountStore, 'createUser' | 'getUserByEmail' | 'getUserById' | 'replacePasswordHash'>;
  /** Attempt counters, checked before any hash. */
  counters: Pick<RateLimitStore, 'hit'>;
  tokens: AccessTokens;
  rateLimits: LoginRateLimits;
  audit(event: AuditEvent): void;
  now?: () => Date;
  newUserId?: () => string;
}

/** Registration issues and checks no token: without `tokens`, so its function needs no signing key. */
export type RegisterDependencies = Omit<AuthDependencies, 'tokens'>;
