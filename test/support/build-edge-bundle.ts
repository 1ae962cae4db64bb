/**
 * Bundles an edge entry (a Worker, or anything importing packages/passlane/src/edge.ts) exactly as the shipped
 * Worker is bundled (packages/server/src/runtimes/workers/build-worker.ts): one ESM file for the browser platform, with
 * `argon2.wasm` copied next to it and imported by relative path, so the runtime hands the script a
 * precompiled WebAssembly.Module (workerd's CompiledWasm module type).
 */
import { bundleForEdge, type WorkerBundle } from '../../packages/server/src/runtimes/workers/build-worker.js';

export type EdgeBundle = Pick<WorkerBundle, 'scriptPath' | 'wasmPath'>;

export function buildEdgeBundle({ entry, outdir }: { entry: string; outdir: string }): Promise<EdgeBundle> {
  return bundleForEdge({ entry, outdir });
}
