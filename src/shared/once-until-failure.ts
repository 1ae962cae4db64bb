/**
 * `build` runs on the first call and its promise is shared by every later call; a rejected
 * build is forgotten, so the next call tries again (a cold start that met a passing fault must
 * not stay broken for the container's life). Runtime-neutral: used on Node, Lambda and edge.
 */
export function onceUntilFailure<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () =>
    (built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    }));
}
