import { chooseBackend, loadBackend, type BackendChoice, type BackendLoaders, type HasherLogger } from './backends/load-backend.js';

export type { BackendChoice, BackendLoaders, HasherLogger };
import type { BackendName } from './backends/types.js';
import { InvalidOptionsError, MalformedHashError, PasswordTooLongError, UnsupportedHashError } from './errors.js';
import { MemoryLimiter, type ConcurrencyOptions } from './limiter.js';
import { assertAcceptablePassword, assertPasswordWithinBounds, fitsAfterNormalising, normalisedPasswordBytes } from './password.js';
import { createPepper, isPeppered, parsePepperEnvelope, placeholderPhc, type PepperOptions } from './pepper.js';
import {
  resolveArgon2Policy,
  resolveLimits,
  resolvePasswordRules,
  type Argon2Policy,
  type PasswordRules,
  type StoredHashLimits,
} from './policy.js';
import { constantTimeEqual, utf8Length } from './encoding.js';
import { formatArgon2Phc } from './schemes/argon2-phc.js';
import { formatWrapped, unwrapLegacyDigest } from './schemes/wrapped.js';
import { assertEncodedLength, parseStoredHash } from './schemes/parse-stored-hash.js';
import type { ParsedHash } from './schemes/types.js';

const randomBytes = (length: number) => crypto.getRandomValues(new Uint8Array(length));

/** passlane's own `$argon2…$` strings: not `{ARGON2}`, Django's `argon2$` or a wrapped record. */
const isPlainArgon2Phc = (parsed: ParsedHash) => parsed.argon2 !== undefined && parsed.scheme === parsed.argon2.algorithm;
/** A stored value once parsed, with the key id of its pepper envelope, if any. */
interface ParsedRecord {
  parsed: ParsedHash;
  pepperKeyId?: string;
}

const isWrapped = (parsed: ParsedHash) => parsed.scheme.startsWith('wrapped_');
/** What passlane seals under a pepper: its own argon2 PHC strings and wrapped records (argon2id tag last). */
const isSealable = (parsed: ParsedHash) => isPlainArgon2Phc(parsed) || isWrapped(parsed);

export interface PasswordHasherOptions {
  /** `auto` (default): native on Node, Lambda, Bun and Deno, WASM elsewhere or when native fails to load. */
  backend?: BackendChoice;
  /** Parameters for new hashes; defaults to OWASP's m=19456 KiB, t=2, p=1. */
  argon2?: Partial<Argon2Policy>;
  /** Allows a policy weaker than OWASP's table (tests, constrained devices). */
  allowWeakParameters?: boolean;
  password?: Partial<PasswordRules>;
  /** Bounds on parameters read from stored hashes. */
  limits?: Partial<StoredHashLimits>;
  /**
   * The pepper's keys; unset or `false`: no pepper. The library reads no environment: a server
   * maps PASSLANE_PEPPER_KEYS onto this (passlane's own config does).
   */
  pepper?: PepperOptions | false;
  concurrency?: Partial<ConcurrencyOptions>;
  /** Where to log the once-only backend fallback warning. */
  logger?: HasherLogger;
}

export interface VerifyResult {
  ok: boolean;
  /** True only when `ok` and the stored value should be replaced by `hash(password)`. */
  needsRehash: boolean;
  scheme: string;
}

/** What a stored value is, without secrets: for audit logs and inventories. */
export interface HashDescription {
  scheme: string;
  /** e.g. `m=19456,t=2,p=1` for argon2; absent for formats whose cost is not comparable. */
  parameters?: string;
  pepperKeyId?: string;
  /** A fast digest (salted or not): what attackers crack first. The inventory flags it; rehash wraps it first. */
  fastDigest?: true;
  /** Wrapped, over a fast digest: safe now, and counted with the fast digests by the rehash job. */
  wrapsFastDigest?: true;
}

/** costShape's answer for argon2id at the policy: what `verifyDummy` costs. */
export const CURRENT_COST_SHAPE = 'current';

export interface PasswordHasher {
  /**
   * A new argon2id hash. `upgrade: true` is for re-encoding a password that just verified: it
   * skips the minimum length, so an old short password still moves to argon2id at login.
   */
  hash(password: string, options?: { upgrade?: boolean }): Promise<string>;
  verify(stored: string, password: string): Promise<VerifyResult>;
  /**
   * Throws what `verify` would throw for this password whatever the stored format: the byte
   * bound, before and after NFKC. Run before looking an account up, so the answer to an
   * over-long password cannot depend on which format (or whether any) is stored.
   */
  checkPassword(password: unknown): void;
  /**
   * What to store in place of `stored` for a password that just verified against it: a new
   * argon2id hash of it, or, when the record reads only part of the password (bcrypt's 72 bytes)
   * and this one is longer, the record itself wrapped in argon2id, so that exactly the passwords
   * that verified before still do. Undefined when neither keeps that promise.
   */
  upgrade(stored: string, password: string): Promise<string | undefined>;
  needsRehash(stored: string): boolean;
  /** Scheme, argon2 parameters and pepper key id of a stored value (parses, never decrypts or hashes). */
  describe(stored: string): HashDescription;
  /**
   * What verifying `stored` costs, as a key: CURRENT_COST_SHAPE for argon2id at the policy (what
   * `verifyDummy` costs, whatever the salt or pepper key), else the scheme and the parameters its
   * time depends on, never salt or digest. Parses only; throws what `describe` throws. Failed
   * logins are padded by it (packages/server/src/features/login/login-failure-timing.ts).
   */
  costShape(stored: string): string;
  /** Costs what verifying a real account costs, and never matches: for unknown accounts. */
  verifyDummy(password: string): Promise<VerifyResult>;
  /** Moves a stored argon2 hash to the current pepper key without the password. */
  rotatePepper(stored: string): Promise<string>;
  /**
   * Makes a legacy or weak record memory-hard without the password: argon2id at the current
   * policy over its digest (see schemes/wrapped.ts). The next good login replaces it.
   */
  wrap(stored: string): Promise<string>;
  /** The backend in use, once loaded. */
  backendName(): Promise<BackendName>;
  readonly policy: Readonly<Argon2Policy>;
}

const defaultLogger: HasherLogger = {
  warn(message, fields) {
    // One JSON line, as Powertools' logger writes them, so CloudWatch Logs Insights can query it.
    console.warn(JSON.stringify({ level: 'WARN', service: 'passlane', message, ...fields }));
  },
};

export function createPasswordHasherWith(options: PasswordHasherOptions, loaders: BackendLoaders): PasswordHasher {
  const policy = Object.freeze(resolveArgon2Policy(options.argon2, options.allowWeakParameters === true));
  const rules = resolvePasswordRules(options.password);
  const limits = resolveLimits(options.limits);
  const pepper = options.pepper ? createPepper(options.pepper) : undefined;
  const limiter = new MemoryLimiter(options.concurrency);
  const choice = chooseBackend(options.backend);
  const logger = options.logger ?? defaultLogger;

  // Loaded on first use; a failed load is not kept, so a later call can retry.
  let loading: ReturnType<typeof loadBackend> | undefined;
  const backend = () =>
    (loading ??= loadBackend(choice, loaders, Math.max(policy.memoryKiB * 2, 64 * 1024), logger).catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
  const context = async () => ({ backend: await backend(), normalise: (password: string) => normalisedPasswordBytes(password, rules) });

  /** What every new argon2 run uses: argon2id v1.3 at the policy. */
  const current = { algorithm: 'argon2id', version: 0x13, memoryKiB: policy.memoryKiB, passes: policy.passes, lanes: policy.lanes } as const;

  async function newPhc(passwordBytes: Uint8Array, salt: Uint8Array, tag?: Uint8Array): Promise<string> {
    tag ??= await (await backend()).argon2({ ...current, password: passwordBytes, salt, tagLength: policy.tagLength });
    const encoded = formatArgon2Phc({ ...current, salt, tag });
    return pepper ? pepper.seal(encoded) : encoded;
  }

  /** Parses without the pepper key: the envelope keeps parameters readable. */
  function parseWithoutKey(stored: string): ParsedRecord {
    if (typeof stored === 'string' && isPeppered(stored)) {
      assertEncodedLength(stored, limits);
      const envelope = parsePepperEnvelope(stored);
      const parsed = parseStoredHash(placeholderPhc(envelope), limits);
      // passlane only ever seals plain argon2 PHC strings and wrapped records (newPhc, wrap, rotatePepper).
      if (!isSealable(parsed)) throw new MalformedHashError('peppered hashes hold argon2 PHC strings or wrapped records');
      return { parsed, pepperKeyId: envelope.keyId };
    }
    return { parsed: parseStoredHash(stored, limits) };
  }

  /**
   * Parses with bounds, then opens the pepper envelope when there is one: a hostile or corrupt
   * record is refused on its length and parameters before any decryption, as plain ones are.
   */
  async function parse(stored: string): Promise<ParsedRecord> {
    const keyless = parseWithoutKey(stored);
    if (keyless.pepperKeyId === undefined) return keyless;
    if (!pepper) throw new InvalidOptionsError('stored hash is peppered but no pepper keys are configured');
    return { parsed: parseStoredHash(await pepper.open(stored), limits), pepperKeyId: keyless.pepperKeyId };
  }

  function describe(stored: string): HashDescription {
    const { parsed, pepperKeyId } = parseWithoutKey(stored);
    const params = parsed.argon2;
    return {
      scheme: parsed.scheme,
      ...(params && { parameters: `v=${params.version},m=${params.memoryKiB},t=${params.passes},p=${params.lanes}` }),
      ...(pepperKeyId !== undefined && { pepperKeyId }),
      ...(parsed.fastDigest && { fastDigest: true }),
      ...(parsed.wrapsFastDigest && { wrapsFastDigest: true }),
    };
  }

  /** Anything but argon2id at the policy, sealed under the current pepper key (or unsealed without one). */
  function isOutdated({ parsed, pepperKeyId }: ParsedRecord): boolean {
    if (pepperKeyId !== pepper?.currentKeyId) return true;
    const params = parsed.argon2;
    if (parsed.scheme !== 'argon2id' || !params) return true;
    return (
      params.version !== 0x13 ||
      params.memoryKiB !== policy.memoryKiB ||
      params.passes !== policy.passes ||
      params.lanes !== policy.lanes ||
      params.tagLength !== policy.tagLength ||
      params.saltLength < policy.saltLength
    );
  }

  const needsRehash = (stored: string): boolean => isOutdated(parseWithoutKey(stored));

  function costShape(stored: string): string {
    const { parsed } = parseWithoutKey(stored);
    const params = parsed.argon2;
    const atPolicy =
      parsed.scheme === 'argon2id' &&
      params?.version === current.version &&
      params.memoryKiB === policy.memoryKiB &&
      params.passes === policy.passes &&
      params.lanes === policy.lanes;
    if (atPolicy) return CURRENT_COST_SHAPE;
    return parsed.cost === undefined ? parsed.scheme : `${parsed.scheme} ${parsed.cost}`;
  }

  /** Recomputes the digest and compares it in constant time, for every format alike. */
  async function verifyParsed(parsed: ParsedHash, password: string): Promise<boolean> {
    const ctx = await context();
    const actual = await limiter.run(parsed.memoryKiB, () => parsed.computeDigest(password, ctx));
    return constantTimeEqual(actual, parsed.digest);
  }

  let dummyStored: Promise<string> | undefined;

  const hasher: PasswordHasher = {
    policy,

    async hash(password, options) {
      if (options?.upgrade) assertPasswordWithinBounds(password, rules);
      else assertAcceptablePassword(password, rules);
      const bytes = normalisedPasswordBytes(password, rules);
      const salt = randomBytes(policy.saltLength);
      await backend();
      return limiter.run(policy.memoryKiB, () => newPhc(bytes, salt));
    },

    async verify(stored, password) {
      assertPasswordWithinBounds(password, rules);
      const record = await parse(stored);
      const ok = await verifyParsed(record.parsed, password);
      // A legacy password (raw bytes) that NFKC expands past maxBytes verifies but can't be hashed:
      // promising a rehash would make the caller's hash(password, { upgrade: true }) throw.
      return { ok, needsRehash: ok && isOutdated(record) && fitsAfterNormalising(password, rules), scheme: record.parsed.scheme };
    },

    checkPassword(password) {
      assertPasswordWithinBounds(password, rules);
      if (!fitsAfterNormalising(password, rules)) throw new PasswordTooLongError(`password must be at most ${rules.maxBytes} bytes`);
    },

    async upgrade(stored, password) {
      const { parsed, pepperKeyId } = await parse(stored);
      const limit = parsed.inputLimitBytes;
      if (limit !== undefined && utf8Length(password) > limit) {
        // Hashing the typed password would drop every other password sharing its first bytes,
        // the real one among them. Wrapping keeps the record's meaning; a wrapped one is kept.
        return isWrapped(parsed) || pepperKeyId !== undefined ? undefined : hasher.wrap(stored);
      }
      return fitsAfterNormalising(password, rules) ? hasher.hash(password, { upgrade: true }) : undefined;
    },

    needsRehash,
    describe,
    costShape,

    async verifyDummy(password) {
      assertPasswordWithinBounds(password, rules);
      // A random salt and tag at the current policy, sealed like a real record when peppered:
      // parsing and verifying it is exactly the work a real account costs, and it never matches.
      dummyStored ??= newPhc(new Uint8Array(0), randomBytes(policy.saltLength), randomBytes(policy.tagLength));
      await verifyParsed((await parse(await dummyStored)).parsed, password);
      return { ok: false, needsRehash: false, scheme: 'argon2id' };
    },

    async rotatePepper(stored) {
      if (!pepper) throw new InvalidOptionsError('no pepper keys are configured');
      // Bounds and format are checked first, so the job never seals garbage or a legacy format.
      const { parsed } = await parse(stored);
      if (!isSealable(parsed)) {
        throw new UnsupportedHashError(`only argon2 PHC hashes and wrapped records can be peppered (got ${parsed.scheme})`);
      }
      return pepper.rotate(stored);
    },

    async wrap(stored) {
      if (typeof stored === 'string' && isPeppered(stored)) throw new UnsupportedHashError('peppered hashes are already current; rotate instead');
      const parsed = parseStoredHash(stored, limits);
      if (isWrapped(parsed)) throw new UnsupportedHashError('the record is already wrapped');
      const { head, digest } = unwrapLegacyDigest(stored, parsed);
      const salt = randomBytes(policy.saltLength);
      const ctx = await context();
      const tag = await limiter.run(policy.memoryKiB, () => ctx.backend.argon2({ ...current, password: digest, salt, tagLength: policy.tagLength }));
      const wrapped = formatWrapped({ ...current, salt, tag }, head);
      // Sealed like every new hash, so a stolen table alone can't be attacked through wrapped records either.
      return pepper ? pepper.seal(wrapped) : wrapped;
    },

    async backendName() {
      return (await backend()).name;
    },
  };
  return hasher;
}
