#!/usr/bin/env bash
# Builds packages/passlane/src/backends/wasm/argon2.wasm from argon2.c with clang + wasm-ld (no libc, no
# emscripten). The .wasm is committed, so only whoever changes argon2.c needs this toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in clang wasm-ld; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "build-wasm: '$tool' not found. On Debian/Ubuntu: apt-get install clang lld" >&2
    exit 1
  fi
done

dir=packages/passlane/src/backends/wasm
# -mbulk-memory: memcpy/memset become memory.copy/fill, so no libc is needed.
# --stack-first: a stack overflow traps at address 0 instead of corrupting static data.
# --max-memory: the full 4 GiB wasm32 space, so large m can still grow (hosts may cap lower).
# --strip-all keeps only the exports; the module imports nothing and exports its own memory.
clang --target=wasm32-unknown-unknown -O3 -msimd128 -mbulk-memory -ffreestanding -nostdlib \
  -fno-builtin -Wall -Wextra -Werror \
  -Wl,--no-entry -Wl,--stack-first -Wl,-z,stack-size=65536 \
  -Wl,--max-memory=4294967296 -Wl,--strip-all \
  -o "$dir/argon2.wasm" "$dir/argon2.c"

echo "built $dir/argon2.wasm ($(wc -c <"$dir/argon2.wasm") bytes)"
