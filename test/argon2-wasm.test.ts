import { hashRaw } from '@node-rs/argon2';
import type { Algorithm, Version } from '@node-rs/argon2';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Argon2Algorithm, Argon2RawInput, Argon2Version } from '../src/hashing/backends/types.js';
import { Argon2Wasm } from '../src/hashing/backends/wasm/argon2-wasm.js';
import { loadArgon2WasmModule } from '../src/hashing/backends/wasm/load-wasm-module-node.js';

// @node-rs/argon2 declares these as ambient const enums, which verbatimModuleSyntax can't read:
// the values are Algorithm.Argon2d/Argon2i/Argon2id = 0/1/2 and Version.V0x10/V0x13 = 0/1.
const NATIVE_ALGORITHM: Record<Argon2Algorithm, Algorithm> = {
  argon2d: 0 as Algorithm,
  argon2i: 1 as Algorithm,
  argon2id: 2 as Algorithm,
};
const NATIVE_VERSION: Record<Argon2Version, Version> = { 0x10: 0 as Version, 0x13: 1 as Version };

/** The independent reference: @node-rs/argon2 (the Rust `argon2` crate). */
async function nativeHash(input: Argon2RawInput): Promise<string> {
  const tag = await hashRaw(Buffer.from(input.password), {
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
  // Known answers of the reference implementation (P="password", S="somesalt", no K/X), for
  // both versions; RFC 9106's own vectors use a secret and associated data, which we don't take.
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
    ];
    for (const override of bad) {
      expect(() => wasm.hash({ ...small, ...override }), JSON.stringify(override)).toThrow(RangeError);
    }
    expect(wasm.hash(small).length).toBe(32);
  });
});
