/**
 * Argon2id: passlane's hasher on both backends, our raw WASM build, native @node-rs/argon2 and
 * the npm WASM alternatives, side by side in one run, at two parameter sets: OWASP's
 * m=19456 t=2 p=1 (15 measured rounds) and RFC 9106's m=65536 t=3 p=4 (7 rounds).
 *
 *   npm run bench:hash            (ROUNDS=n measured rounds for both sets; ROUNDS=1 is the quick form the tests run)
 *
 * Seven rows per set: native hashRaw (the raw tag) and native hash (its PHC string), passlane
 * wasm (our raw WASM build), passlane hasher native and wasm (the whole public path: NFKC,
 * limiter, random salt, PHC encoding), hash-wasm and argon2id (openpgpjs). Columns: median ms,
 * minimum ms, and "x native", the median over the faster of the two native medians.
 *
 * Each round runs every implementation once, in rotating order, so drift in machine load hits all of them
 * alike; a warm-up round (JIT tier-up, memory growth) is discarded. The machine is shared: keep rounds modest.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { hash as nativeHash, hashRaw as nativeHashRaw } from '@node-rs/argon2';
import setupOpenpgpArgon2id from 'argon2id/lib/setup.js';
import { argon2id as hashWasmArgon2id } from 'hash-wasm';
import { Argon2Wasm } from '../packages/passlane/src/backends/wasm/argon2-wasm.js';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { loadArgon2WasmModule } from '../packages/passlane/src/backends/wasm/load-wasm-module-node.js';

interface Params {
  m: number;
  t: number;
  p: number;
  rounds: number;
}

const PARAM_SETS: Params[] = [
  { m: 19456, t: 2, p: 1, rounds: 15 }, // OWASP minimum for argon2id
  { m: 65536, t: 3, p: 4, rounds: 7 }, // RFC 9106 second recommendation (64 MiB)
];
const TAG_LENGTH = 32;
const ARGON2ID = 2 as import('@node-rs/argon2').Algorithm; // const enum, unreadable under verbatimModuleSyntax

type Impl = (password: Uint8Array, salt: Uint8Array, params: Params) => Promise<Uint8Array | string>;

async function setUp(): Promise<Array<[string, Impl]>> {
  const ours = await Argon2Wasm.instantiate(await loadArgon2WasmModule());

  // openpgpjs' argon2id ships SIMD and non-SIMD builds; setup picks SIMD where supported.
  const require = createRequire(import.meta.url);
  const distDir = require.resolve('argon2id/lib/setup.js').replace(/lib\/setup\.js$/, 'dist/');
  const simd = await readFile(`${distDir}simd.wasm`);
  const noSimd = await readFile(`${distDir}no-simd.wasm`);
  const openpgp = await setupOpenpgpArgon2id(
    (imports) => WebAssembly.instantiate(simd, imports),
    (imports) => WebAssembly.instantiate(noSimd, imports),
  );

  // The whole public path: NFKC, limiter, random salt, PHC encoding (no pepper).
  const hasher = (backend: 'native' | 'wasm') => {
    const byParams = new Map<string, ReturnType<typeof createPasswordHasher>>();
    return (_password: Uint8Array, _salt: Uint8Array, { m, t, p }: Params) => {
      const key = `${m},${t},${p}`;
      let h = byParams.get(key);
      if (!h) byParams.set(key, (h = createPasswordHasher({ backend, pepper: false, argon2: { memoryKiB: m, passes: t, lanes: p } })));
      return h.hash('correct horse battery staple');
    };
  };

  // The same options for both native calls: raw tag, and the PHC string around it.
  const nativeOptions = (salt: Uint8Array, { m, t, p }: Params) => ({
    algorithm: ARGON2ID,
    memoryCost: m,
    timeCost: t,
    parallelism: p,
    outputLen: TAG_LENGTH,
    salt: Buffer.from(salt),
  });

  return [
    ['native hashRaw', (password, salt, params) => nativeHashRaw(Buffer.from(password), nativeOptions(salt, params))],
    ['native hash (PHC)', (password, salt, params) => nativeHash(Buffer.from(password), nativeOptions(salt, params))],
    [
      'passlane wasm',
      async (password, salt, { m, t, p }) =>
        ours.hash({
          algorithm: 'argon2id',
          version: 0x13,
          memoryKiB: m,
          passes: t,
          lanes: p,
          password,
          salt,
          tagLength: TAG_LENGTH,
        }),
    ],
    ['passlane hasher native', hasher('native')],
    ['passlane hasher wasm', hasher('wasm')],
    [
      'hash-wasm',
      (password, salt, { m, t, p }) =>
        hashWasmArgon2id({
          password,
          salt,
          parallelism: p,
          iterations: t,
          memorySize: m,
          hashLength: TAG_LENGTH,
          outputType: 'binary',
        }),
    ],
    [
      'argon2id (openpgpjs)',
      async (password, salt, { m, t, p }) =>
        openpgp({ password, salt, parallelism: p, passes: t, memorySize: m, tagLength: TAG_LENGTH }),
    ],
  ];
}

function roundsFrom(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const rounds = Number(text);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`ROUNDS must be a positive integer (got ${JSON.stringify(text)})`);
  return rounds;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const hex = (x: Uint8Array | string): string => (typeof x === 'string' ? x : Buffer.from(x).toString('hex'));

async function main(): Promise<void> {
  const impls = await setUp();
  const roundsOverride = roundsFrom(process.env.ROUNDS);
  const password = new TextEncoder().encode('correct horse battery staple');
  const salt = Uint8Array.from({ length: 16 }, (_, i) => i * 7 + 1);

  for (const params of PARAM_SETS) {
    const rounds = roundsOverride ?? params.rounds;
    const times = impls.map(() => [] as number[]);
    // Warm-up, doubling as a cross-check: every raw tag must equal native's (PHC strings differ by salt).
    const tags = await Promise.all(impls.map(([, run]) => run(password, salt, params)));
    for (const [i, [name]] of impls.entries()) {
      if (typeof tags[i] !== 'string' && hex(tags[i]!) !== hex(tags[0]!)) {
        throw new Error(`${name} disagrees with native at m=${params.m} t=${params.t} p=${params.p}`);
      }
    }
    for (let round = 0; round < rounds; round++) {
      // Rotate who goes first, so no implementation always follows the same neighbour.
      for (let k = 0; k < impls.length; k++) {
        const i = (round + k) % impls.length;
        const start = performance.now();
        await impls[i]![1](password, salt, params);
        times[i]!.push(performance.now() - start);
      }
    }

    // Native allocates its m KiB per call; right after another implementation dirtied the
    // caches (and the allocator handed back its pages) it runs up to 2x slower than when it
    // follows itself, so the baseline is the faster of the two native medians.
    const medians = times.map(median);
    const base = Math.min(medians[0]!, medians[1]!);
    console.log(`\nargon2id m=${params.m} KiB, t=${params.t}, p=${params.p}: ${rounds} interleaved rounds (x native: median / faster native median)`);
    console.log(
      `${'implementation'.padEnd(24)} ${'median ms'.padStart(10)} ${'min ms'.padStart(8)} ${'x native'.padStart(9)}`,
    );
    for (const [i, [name]] of impls.entries()) {
      const ms = medians[i]!;
      console.log(
        `${name.padEnd(24)} ${ms.toFixed(2).padStart(10)} ${Math.min(...times[i]!).toFixed(2).padStart(8)} ` +
          `${(ms / base).toFixed(2).padStart(9)}`,
      );
    }
  }
}

await main();
