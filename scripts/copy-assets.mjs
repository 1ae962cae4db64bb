// tsc does not copy non-TypeScript files; the WASM module must sit next to the compiled loader.
import { cpSync, mkdirSync } from 'node:fs';

const assets = ['src/hashing/backends/wasm/argon2.wasm'];
for (const asset of assets) {
  const target = `dist/${asset}`;
  mkdirSync(target.slice(0, target.lastIndexOf('/')), { recursive: true });
  cpSync(asset, target);
}
