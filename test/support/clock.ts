/** A clock the test moves; use-cases read it through deps.now. */
export function movableClock(start = Date.now()) {
  let now = start;
  return { now: () => new Date(now), advance: (seconds: number) => void (now += seconds * 1000) };
}

/** What a promise rejected with, or undefined if it resolved. */
export const failureOf = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => undefined, (error: unknown) => error);
