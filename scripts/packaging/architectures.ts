/** Lambda's architecture names, and what npm, Node and ELF call the same CPU. */
export const LAMBDA_ARCHITECTURES = ['arm64', 'x86_64'] as const;
export type LambdaArchitecture = (typeof LAMBDA_ARCHITECTURES)[number];

/** arm64 by default: about 20% cheaper per GB-second on Lambda, and argon2 runs well on Graviton. */
export const DEFAULT_ARCHITECTURE: LambdaArchitecture = 'arm64';

/** npm's `cpu` (and Node's process.arch) for each Lambda architecture. */
export const NPM_CPU: Record<LambdaArchitecture, 'arm64' | 'x64'> = { arm64: 'arm64', x86_64: 'x64' };

/** ELF header e_machine: EM_AARCH64 and EM_X86_64. */
export const ELF_MACHINE: Record<LambdaArchitecture, number> = { arm64: 0xb7, x86_64: 0x3e };

export function parseArchitecture(value: string | undefined): LambdaArchitecture {
  const text = value?.trim() || DEFAULT_ARCHITECTURE;
  if (!(LAMBDA_ARCHITECTURES as readonly string[]).includes(text)) {
    throw new Error(`architecture must be ${LAMBDA_ARCHITECTURES.join(' or ')} (got ${JSON.stringify(text)})`);
  }
  return text as LambdaArchitecture;
}
