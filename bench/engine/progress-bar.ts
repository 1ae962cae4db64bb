/** A one-line progress bar on stderr; plain lines per phase when stderr is not a terminal. */
import type { BenchProgress } from './run-bench.js';

export type ProgressStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export function createProgressBar(stream: ProgressStream = process.stderr): { update(p: BenchProgress): void; done(): void } {
  let lastPhase = '';
  const tty = stream.isTTY === true;
  return {
    update(p) {
      if (!tty) {
        if (p.phase !== lastPhase) stream.write(`bench: ${p.phase}\n`);
        lastPhase = p.phase;
        return;
      }
      const width = 30;
      const filled = Math.round((p.done / Math.max(1, p.total)) * width);
      const label = p.label ? ` ${p.label}` : '';
      stream.write(`\r\x1b[2K${p.phase.padEnd(9)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total}${label}`.slice(0, (stream.columns || 120) + 8));
      lastPhase = p.phase;
    },
    done() {
      if (tty) stream.write('\r\x1b[2K');
    },
  };
}
