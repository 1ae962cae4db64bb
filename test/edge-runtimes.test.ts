/**
 * The edge entry, bundled as a Worker, running where run-time WebAssembly compilation is refused:
 * Cloudflare's workerd (through Miniflare) and Vercel's edge-runtime with code generation off.
 * Both get argon2 only as a precompiled module, as from a static `.wasm` import in production.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
// `EdgeRuntime` is @edge-runtime/vm's EdgeVM, re-exported (the package we depend on directly).
import { EdgeRuntime } from 'edge-runtime';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { buildEdgeBundle, type EdgeBundle } from './support/build-edge-bundle.js';
import { startEdgeVm } from './support/edge-vm.js';

type Fetch = (url: string, init?: { method: string; body: string }) => Promise<{ status: number; json(): Promise<unknown> }>;

const PASSWORD = 'correct horse battery staple';
// The reference implementation, outside any sandbox.
const native = createPasswordHasher({ backend: 'native', pepper: false });

let outdir: string;
let bundle: EdgeBundle;

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'passlane-edge-'));
  bundle = await buildEdgeBundle({ entry: fileURLToPath(new URL('./support/edge-worker-entry.ts', import.meta.url)), outdir });
});

afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

/** The same checks against the Worker's JSON endpoints, whichever runtime serves them. */
function describeWorkerContract(runtime: string, getFetch: () => Fetch) {
  const post = async (path: string, body: unknown) => {
    const response = await getFetch()(`http://edge.test${path}`, { method: 'POST', body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it(`${runtime} refuses WebAssembly.compile from bytes`, async () => {
    const response = await getFetch()('http://edge.test/wasm-compile-allowed');
    // Fails if the runtime ever allows it: the other tests would then no longer prove the static-import path.
    expect(await response.json()).toMatchObject({ allowed: false, message: expect.stringMatching(/code generation disallowed/i) });
  });

  it(`hashes in ${runtime} on the wasm backend, and native verifies the hash`, async () => {
    const { status, body } = await post('/hash', { password: PASSWORD });
    expect(status).toBe(200);
    expect(body.backend).toBe('wasm');
    expect(body.hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    await expect(native.verify(body.hash as string, PASSWORD)).resolves.toEqual({ ok: true, needsRehash: false, scheme: 'argon2id' });
    await expect(native.verify(body.hash as string, 'wrong')).resolves.toMatchObject({ ok: false });
  });

  it(`verifies a native hash in ${runtime}, and rejects the wrong password`, async () => {
    const hash = await native.hash(PASSWORD);
    expect(await post('/verify', { hash, password: PASSWORD })).toEqual({
      status: 200,
      body: { ok: true, scheme: 'argon2id', needsRehash: false },
    });
    expect(await post('/verify', { hash, password: 'wrong' })).toMatchObject({ status: 200, body: { ok: false } });
  });

  it(`verifies a legacy bcrypt hash in ${runtime} (bcryptjs bundled) and asks for a rehash`, async () => {
    const hash = bcrypt.hashSync(PASSWORD, 4);
    expect(await post('/verify', { hash, password: PASSWORD })).toMatchObject({ status: 200, body: { ok: true, needsRehash: true } });
    expect(await post('/verify', { hash, password: 'wrong' })).toMatchObject({ status: 200, body: { ok: false } });
  });

  it(`answers a malformed hash in ${runtime} with 400 and a typed error code`, async () => {
    // instanceof PasslaneError held inside the bundle: the code comes through, not a 500.
    const { status, body } = await post('/verify', { hash: '$argon2id$v=19$m=19456,t=2,p=1$!!$!!', password: PASSWORD });
    expect(status).toBe(400);
    expect((body.error as { code: string }).code).toMatch(/^ERR_HASH_(MALFORMED|UNSUPPORTED)$/);
  });
}

it('the edge build refuses the Node entry, naming the Node-only import', async () => {
  // The guard behind "no @node-rs/* or node: in the edge bundle": packages/passlane/src/index.ts has both.
  const entry = fileURLToPath(new URL('../packages/passlane/src/index.ts', import.meta.url));
  await expect(buildEdgeBundle({ entry, outdir: join(outdir, 'node-entry') })).rejects.toThrow(/must not import (@node-rs\/|node:)/);
});

describe('workerd (Miniflare)', () => {
  let miniflare: Miniflare | undefined;

  beforeAll(async () => {
    miniflare = new Miniflare({
      modules: true,
      scriptPath: bundle.scriptPath,
      // Module names are paths relative to this root; the default (cwd) is not an ancestor of tmpdir.
      modulesRoot: outdir,
      // What wrangler does for `.wasm` imports: the runtime compiles the module before the script runs.
      modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
      compatibilityDate: '2025-01-01',
    });
    await miniflare.ready;
  });

  afterAll(async () => {
    await miniflare?.dispose();
  });

  describeWorkerContract('workerd', () => (url, init) => miniflare!.dispatchFetch(url, init));
});

describe('Vercel edge-runtime (EdgeVM, code generation off)', () => {
  let vm: EdgeRuntime;

  beforeAll(async () => {
    vm = await startEdgeVm(bundle, 'entry.fetch(request)');
  });

  it('refuses WebAssembly.compile from bytes in the VM itself', async () => {
    // Straight in the context, before any of our code: the sandbox really is configured as intended.
    await expect(vm.evaluate('WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))')).rejects.toThrow(
      /code generation disallowed/i,
    );
  });

  describeWorkerContract('edge-runtime', () => (url, init) => vm.dispatchFetch(url, init));
});
