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

/** The same, once per key (held weakly): e.g. per Worker `env`, which workerd reuses for an isolate's requests. */
export function oncePerKeyUntilFailure<K extends object, T>(build: (key: K) => Promise<T>): (key: K) => Promise<T> {
  const built = new WeakMap<K, () => Promise<T>>();
  return (key) => {
    let get = built.get(key);
    if (get === undefined) {
      get = onceUntilFailure(() => build(key));
      built.set(key, get);
    }
    return get();
  };
}
