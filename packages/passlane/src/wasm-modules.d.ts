// Bundlers for edge runtimes (wrangler, esbuild with a CompiledWasm rule) turn a `.wasm` import into a compiled module.
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
