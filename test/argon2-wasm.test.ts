import { hashRaw } from '@node-rs/argon2';
import type { Algorithm, Version } from '@node-rs/argon2';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Argon2Algorithm, Argon2RawInput, Argon2Version } from '../packages/passlane/src/backends/types.js';
import {
  ARGON2_WASM_MAX_AD_BYTES,
  ARGON2_WASM_MAX_SECRET_BYTES,
  Argon2Wasm,
} from '../packages/passlane/src/backends/wasm/argon2-wasm.js';
import { loadArgon2WasmModule } from '../packages/passlane/src/backends/wasm/load-wasm-module-node.js';

// @node-rs/argon2 declares these as ambient const enums, which verbatimModuleSyntax can't read:
// the values are Algorithm.Argon2d/Argon2i/Argon2id = 0/1/2 and Version.V0x10/V0x13 = 0/1.
const NATIVE_ALGORITHM: Record<Argon2Algorithm, Algorithm> = {
  argon2d: 0 as Algorithm,
  argon2i: 1 as Algorithm,
  argon2id: 2 as Algorithm,
};
const NATIVE_VERSION: Record<Argon2Version, Version> = { 0x10: 0 as Version, 0x13: 1 as Version };

/** The independent reference: @node-rs/argon2 (the Rust `argon2` crate). It takes K, not X. */
async function nativeHash(input: Argon2RawInput): Promise<string> {
  if (input.associatedData?.length) throw new Error('@node-rs/argon2 has no associated data input');
  const tag = await hashRaw(Buffer.from(input.password), {
    ...(input.secret && { secret: Buffer.from(input.secret) }),
    algorithm: NATIVE_ALGORITHM[input.algorithm],
    version: NATIVE_VERSION[input.version],
    memoryCost: input.memoryKiB,
    timeCost: input.passes,
    parallelism: input.lanes,
    outputLen: input.tagLength,
    salt: Buffer.from(input.salt),
  });
  return tag.toString('hex');
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
/** Deterministic filler so failures reproduce. */
const pattern = (length: number, seed: number): Uint8Array =>
  Uint8Array.from({ length }, (_, i) => (i * 31 + seed * 17 + 7) & 0xff);

let wasm: Argon2Wasm;
beforeAll(async () => {
  wasm = await Argon2Wasm.instantiate(await loadArgon2WasmModule());
});

describe('Argon2Wasm known answers', () => {
  // RFC 9106 §5.1-5.3: v=0x13, m=32 KiB, t=3, p=4, T=32; P = 32 x 01, S = 16 x 02, K = 8 x 03,
  // X = 12 x 04. The only published vectors that exercise K and X.
  it.each([
    ['argon2d', '512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb'],
    ['argon2i', 'c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8'],
    ['argon2id', '0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659'],
  ] as const)('RFC 9106 %s test vector', (algorithm, expected) => {
    const tag = wasm.hash({
      algorithm,
      version: 0x13,
      memoryKiB: 32,
      passes: 3,
      lanes: 4,
      password: new Uint8Array(32).fill(0x01),
      salt: new Uint8Array(16).fill(0x02),
      secret: new Uint8Array(8).fill(0x03),
      associatedData: new Uint8Array(12).fill(0x04),
      tagLength: 32,
    });
    expect(hex(tag)).toBe(expected);
  });

  // Known answers of the reference implementation (P="password", S="somesalt", no K/X), for both
  // versions: RFC 9106 only has v=0x13 vectors.
  it.each([
    [0x13, 'c1628832147d9720c5bd1cfd61367078729f6dfb6f8fea9ff98158e0d7816ed0'],
    [0x10, 'f6c4db4a54e2a370627aff3db6176b94a2a209a62c8e36152711802f7b30c694'],
  ] as const)('argon2i v=0x%s m=65536 t=2 p=1', (version, expected) => {
    const tag = wasm.hash({
      algorithm: 'argon2i',
      version,
      memoryKiB: 65536,
      passes: 2,
      lanes: 1,
      password: bytes('password'),
      salt: bytes('somesalt'),
      tagLength: 32,
    });
    expect(hex(tag)).toBe(expected);
  });
});

describe('Argon2Wasm matches @node-rs/argon2', () => {
  // [m, t, p]: the minimum m = 8p, m not a multiple of 4p (m' rounds down), several lanes.
  const costs: Array<[number, number, number]> = [
    [8, 1, 1],
    [64, 3, 1],
    [32, 1, 4],
    [100, 2, 4],
    [77, 2, 3],
    [530, 2, 2],
  ];
  const algorithms: Argon2Algorithm[] = ['argon2d', 'argon2i', 'argon2id'];
  const versions: Argon2Version[] = [0x13, 0x10];
  const saltLengths = [8, 16, 32];
  const tagLengths = [4, 32, 64, 100];
  const passwords = [new Uint8Array(0), bytes('correct horse battery staple'), pattern(300, 1)];

  // Every algorithm x version x cost (36 cases). Salts, tags and passwords rotate with the
  // combination index j as well as the cost index i, so each cost meets each of them.
  const grid: Argon2RawInput[] = [];
  let j = 0;
  for (const algorithm of algorithms) {
    for (const version of versions) {
      costs.forEach(([memoryKiB, passes, lanes], i) => {
        grid.push({
          algorithm,
          version,
          memoryKiB,
          passes,
          lanes,
          password: passwords[(i + j) % passwords.length]!,
          salt: pattern(saltLengths[(i + 2 * j) % saltLengths.length]!, i * 8 + j),
          tagLength: tagLengths[(i + j) % tagLengths.length]!,
        });
      });
      j++;
    }
  }

  it.each(grid.map((input) => [
    `${input.algorithm} v=${input.version} m=${input.memoryKiB} t=${input.passes} p=${input.lanes} ` +
      `pwd=${input.password.length} salt=${input.salt.length} tag=${input.tagLength}`,
    input,
  ]))('%s', async (_name, input) => {
    expect(hex(wasm.hash(input))).toBe(await nativeHash(input));
  });

  it.each([4, 5, 31, 32, 33, 63, 64, 65, 96, 97, 100, 1024])('tag length %i', async (tagLength) => {
    const input: Argon2RawInput = {
      algorithm: 'argon2id',
      version: 0x13,
      memoryKiB: 16,
      passes: 1,
      lanes: 1,
      password: bytes('pw'),
      salt: pattern(16, tagLength),
      tagLength,
    };
    const tag = wasm.hash(input);
    expect(tag.length).toBe(tagLength);
    expect(hex(tag)).toBe(await nativeHash(input));
  });

  it('long password (64 KiB) and long salt', async () => {
    const input: Argon2RawInput = {
      algorithm: 'argon2id',
      version: 0x13,
      memoryKiB: 64,
      passes: 1,
      lanes: 2,
      password: pattern(65536, 3),
      salt: pattern(1000, 4),
      tagLength: 32,
    };
    expect(hex(wasm.hash(input))).toBe(await nativeHash(input));
  });

  it('OWASP parameters (m=19456 t=2 p=1) and p=16', async () => {
    const owasp: Argon2RawInput = {
      algorithm: 'argon2id',
      version: 0x13,
      memoryKiB: 19456,
      passes: 2,
      lanes: 1,
      password: bytes('hunter2'),
      salt: pattern(16, 5),
      tagLength: 32,
    };
    expect(hex(wasm.hash(owasp))).toBe(await nativeHash(owasp));
    const wide = { ...owasp, memoryKiB: 1024, lanes: 16 };
    expect(hex(wasm.hash(wide))).toBe(await nativeHash(wide));
  });
});

describe('Argon2Wasm secret (K) and associated data (X)', () => {
  const base: Argon2RawInput = {
    algorithm: 'argon2id',
    version: 0x13,
    memoryKiB: 64,
    passes: 2,
    lanes: 2,
    password: bytes('correct horse battery staple'),
    salt: pattern(16, 9),
    tagLength: 32,
  };
  const algorithms: Argon2Algorithm[] = ['argon2d', 'argon2i', 'argon2id'];

  // @node-rs/argon2 takes a secret but no associated data, so K is checked against it directly.
  // Lengths 1, 8 (RFC's), 64 (the cap), on both versions, p = 1 and 4, one H0 block and more.
  const secretCases = algorithms.flatMap((algorithm) =>
    [
      { secretLength: 1, version: 0x13, lanes: 1 },
      { secretLength: 8, version: 0x13, lanes: 4 },
      { secretLength: ARGON2_WASM_MAX_SECRET_BYTES, version: 0x10, lanes: 2 },
      { secretLength: ARGON2_WASM_MAX_SECRET_BYTES, version: 0x13, lanes: 1 },
    ].map(({ secretLength, version, lanes }): [string, Argon2RawInput] => [
      `${algorithm} v=${version} p=${lanes} secret=${secretLength}`,
      { ...base, algorithm, version: version as Argon2Version, lanes, secret: pattern(secretLength, secretLength) },
    ]),
  );
  it.each(secretCases)('secret matches @node-rs/argon2: %s', async (_name, input) => {
    const tag = hex(wasm.hash(input));
    expect(tag).toBe(await nativeHash(input));
    expect(tag).not.toBe(hex(wasm.hash({ ...input, secret: undefined })));
  });

  it('an empty secret or empty associated data is the same as none', () => {
    const none = hex(wasm.hash(base));
    expect(hex(wasm.hash({ ...base, secret: new Uint8Array(0) }))).toBe(none);
    expect(hex(wasm.hash({ ...base, associatedData: new Uint8Array(0) }))).toBe(none);
  });

  it('associated data changes the tag, and is not interchangeable with the secret', () => {
    const x = pattern(12, 4);
    const withAd = hex(wasm.hash({ ...base, associatedData: x }));
    expect(withAd).not.toBe(hex(wasm.hash(base)));
    expect(withAd).not.toBe(hex(wasm.hash({ ...base, secret: x })));
    expect(hex(wasm.hash({ ...base, associatedData: pattern(ARGON2_WASM_MAX_AD_BYTES, 5) }))).toHaveLength(64);
  });
});

describe('argon2.c ABI, called directly', () => {
  interface RawExports {
    memory: WebAssembly.Memory;
    argon2_scratch(len: number): number;
    argon2_hash(...args: number[]): number;
  }
  const instantiateRaw = async (): Promise<RawExports> => {
    const instance = await WebAssembly.instantiate(await loadArgon2WasmModule(), {});
    return instance.exports as unknown as RawExports;
  };
  /** Writes P || S || K || X to the scratch area and runs argon2id v=0x13 m=64 t=1 p=1 T=32. */
  const run = (raw: RawExports, parts: Uint8Array[]): number => {
    const total = parts.reduce((n, part) => n + part.length, 0);
    const scratch = raw.argon2_scratch(Math.max(total, 32));
    let offset = scratch;
    for (const part of parts) {
      new Uint8Array(raw.memory.buffer).set(part, offset);
      offset += part.length;
    }
    return raw.argon2_hash(2, 0x13, 64, 1, 1, ...parts.map((part) => part.length), 32);
  };
  const containsAny16 = (haystack: Uint8Array, needle: Uint8Array): boolean => {
    const memory = Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength);
    for (let i = 0; i + 16 <= needle.length; i++) {
      if (memory.indexOf(needle.subarray(i, i + 16)) !== -1) return true;
    }
    return false;
  };

  it('enforces the secret and associated data caps itself (status 10, 11)', async () => {
    const raw = await instantiateRaw();
    const parts = (secret: number, ad: number) => [bytes('pw'), pattern(16, 1), pattern(secret, 2), pattern(ad, 3)];
    expect(run(raw, parts(ARGON2_WASM_MAX_SECRET_BYTES, ARGON2_WASM_MAX_AD_BYTES))).toBe(0);
    expect(run(raw, parts(ARGON2_WASM_MAX_SECRET_BYTES + 1, 0))).toBe(10);
    expect(run(raw, parts(0, ARGON2_WASM_MAX_AD_BYTES + 1))).toBe(11);
  });

  it('leaves no copy of the password or the secret anywhere in linear memory', async () => {
    const raw = await instantiateRaw();
    const password = pattern(200, 11); // longer than a BLAKE2b block
    const secret = pattern(ARGON2_WASM_MAX_SECRET_BYTES, 12);
    const parts = [password, pattern(16, 13), secret, pattern(100, 14)];
    // Sanity check of the scan: before hashing both are in the scratch area.
    raw.argon2_scratch(400);
    const scratch = raw.argon2_scratch(0);
    new Uint8Array(raw.memory.buffer).set(secret, scratch);
    expect(containsAny16(new Uint8Array(raw.memory.buffer), secret)).toBe(true);

    expect(run(raw, parts)).toBe(0);
    const memory = new Uint8Array(raw.memory.buffer);
    expect(containsAny16(memory, password)).toBe(false);
    expect(containsAny16(memory, secret)).toBe(false);
  });
});

describe('Argon2Wasm instance and memory', () => {
  const small: Argon2RawInput = {
    algorithm: 'argon2id',
    version: 0x13,
    memoryKiB: 256,
    passes: 1,
    lanes: 1,
    password: bytes('password'),
    salt: bytes('somesaltsomesalt'),
    tagLength: 32,
  };

  it('memory stays flat over 200 hashes and reset() releases a large one', async () => {
    const own = await Argon2Wasm.instantiate(await loadArgon2WasmModule());
    const first = hex(own.hash(small));
    const afterFirst = own.memoryBytes;
    for (let i = 0; i < 200; i++) {
      // Varying inputs (and so scratch use) must not grow memory either.
      own.hash({ ...small, password: pattern(i, i), salt: pattern(8 + (i % 24), i) });
    }
    expect(own.memoryBytes).toBe(afterFirst);
    expect(hex(own.hash(small))).toBe(first);

    own.hash({ ...small, memoryKiB: 8192 });
    expect(own.memoryBytes).toBeGreaterThan(8 * 1024 * 1024);
    await own.reset();
    expect(own.memoryBytes).toBeLessThan(afterFirst);
    expect(hex(own.hash(small))).toBe(first);
  });

  it('rejects invalid parameters without breaking the instance', () => {
    const bad: Array<Partial<Argon2RawInput>> = [
      { algorithm: 'argon2x' as Argon2Algorithm },
      { version: 0x12 as Argon2Version },
      { memoryKiB: 7 },
      { memoryKiB: 31, lanes: 4 },
      { memoryKiB: 1.5 },
      { passes: 0 },
      { lanes: 0 },
      { salt: new Uint8Array(7) },
      { tagLength: 3 },
      { secret: new Uint8Array(ARGON2_WASM_MAX_SECRET_BYTES + 1) },
      { associatedData: new Uint8Array(ARGON2_WASM_MAX_AD_BYTES + 1) },
    ];
    for (const override of bad) {
      expect(() => wasm.hash({ ...small, ...override }), JSON.stringify(override)).toThrow(RangeError);
    }
    expect(wasm.hash(small).length).toBe(32);
  });
});
