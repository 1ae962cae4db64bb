/** process.env where it exists (Node, Lambda, Bun, Deno with compat, Vercel's edge), else empty. */
export function readProcessEnv(): Record<string, string | undefined> {
  const maybeProcess = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return maybeProcess?.env ?? {};
}
