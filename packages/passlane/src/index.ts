/**
 * passlane for Node.js, AWS Lambda, Bun and Deno: the native argon2 binding, with the WASM build
 * as fallback. Edge runtimes resolve `passlane` to edge.ts instead (package.json `exports`).
 */
export * from './public-api.js';
export { createPasswordHasher, type NodePasswordHasherOptions } from './node-hasher.js';
