/**
 * A long-running command's Ctrl-C and SIGTERM: say so, stop what it started, exit 0 (or 1 when
 * stopping fails). Once per signal kind: a second Ctrl-C gets Node's default, which kills.
 */
export function stopOnSignals(stop: () => Promise<void>): void {
  const shutdown = (signal: string): void => {
    console.log(`${signal} received, stopping`);
    stop().then(
      () => {
        process.exitCode = 0;
      },
      (error: unknown) => {
        console.error('stop failed:', error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
