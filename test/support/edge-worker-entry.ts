/**
 * A minimal Worker over the edge entry, for test/edge-runtimes.test.ts: bundled by
 * build-edge-bundle.ts and run in workerd (Miniflare) and in Vercel's edge-runtime.
 */
import { createPasswordHasher, PasslaneError } from '../../packages/passlane/src/edge.js';

// Created once per isolate, as a real Worker would: the WASM instance is reused across requests.
const hasher = createPasswordHasher();

/** Smallest valid module (magic + version): compiling it can only fail if the runtime refuses. */
const EMPTY_WASM = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

async function handle(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (request.method === 'GET' && pathname === '/wasm-compile-allowed') {
    try {
      await WebAssembly.compile(EMPTY_WASM);
      return Response.json({ allowed: true });
    } catch (error) {
      return Response.json({ allowed: false, message: String(error) });
    }
  }
  if (request.method === 'POST' && pathname === '/hash') {
    const { password } = (await request.json()) as { password: string };
    return Response.json({ hash: await hasher.hash(password), backend: await hasher.backendName() });
  }
  if (request.method === 'POST' && pathname === '/verify') {
    const { hash, password } = (await request.json()) as { hash: string; password: string };
    const { ok, scheme, needsRehash } = await hasher.verify(hash, password);
    return Response.json({ ok, scheme, needsRehash });
  }
  return new Response('not found', { status: 404 });
}

export default {
  async fetch(request: Request): Promise<Response> {
    try {
      return await handle(request);
    } catch (error) {
      // Typed errors are the caller's fault (bad stored hash, bad password); anything else is a bug.
      if (error instanceof PasslaneError) {
        return Response.json({ error: { code: error.code, message: error.message } }, { status: 400 });
      }
      return Response.json({ error: { code: 'ERR_INTERNAL', message: String(error) } }, { status: 500 });
    }
  },
};
