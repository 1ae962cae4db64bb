import { createPasswordHasher, DEFAULT_ARGON2_POLICY } from 'passlane/edge';
import type { Platform } from '../../wiring/platform.js';
import { createWorkerDynamoDbClient } from './dynamodb-client.js';
import { ISOLATE_HASH_LIMITS, ISOLATE_VERIFY_BUDGET } from './edge-limits.js';
import { auditToLog, log } from './edge-log.js';
import { loadBundledBlocklist } from '../../features/password/rules/bundled-blocklist.js';
import { createWorkerSesClient } from './ses-client.js';

/**
 * Cloudflare Workers and Vercel Edge: the WASM-only hashing entry, credentials from bindings,
 * JSON log lines on the console.
 */
export const edgePlatform: Platform = {
  createPasswordHasher,
  hasherLimits: {
    /**
     * One hash at a time: an isolate has 128 MB, and WASM argon2 runs synchronously
     * anyway, so a second request could only wait. Waiting is bounded so a burst answers
     * `temporarily_unavailable` instead of queueing for ever.
     */
    // One at a time whatever the format: a bcrypt or PBKDF2 verify needs little memory but all of
    // the isolate's one thread, so memory alone would admit thousands at once.
    concurrency: { memoryBudgetKiB: DEFAULT_ARGON2_POLICY.memoryKiB, maxConcurrent: 1, maxQueue: 16, queueTimeoutMs: 2_000 },
    limits: ISOLATE_HASH_LIMITS,
  },
  defaultVerifyBudget: ISOLATE_VERIFY_BUDGET,
  dynamoDb: createWorkerDynamoDbClient,
  warn: (message, fields) => log('WARN', message, fields),
  audit: auditToLog,
  // One bundle serves every route: the data is in it, decoded on the first password set, never by a login.
  passwordBlocklist: loadBundledBlocklist,
  mail: { sesClient: createWorkerSesClient, log: { info: (message, fields) => log('INFO', message, fields), warn: (message, fields) => log('WARN', message, fields) } },
};
