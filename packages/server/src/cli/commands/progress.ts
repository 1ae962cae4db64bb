import type { CommandIo } from './command-io.js';

export interface ProgressSnapshot {
  /** 0..1 when the total is known (import: bytes read of the file size). */
  fraction?: number;
  text: string;
}

export interface ProgressReporter {
  /** Cheap to call often: the snapshot is taken only when a line is due. */
  update(snapshot: () => ProgressSnapshot): void;
  /** Clears the bar (TTY) before the summary is printed. */
  done(): void;
}

const TTY_REDRAW_MS = 100;
const PLAIN_LINE_MS = 5_000;
const BAR_WIDTH = 24;

/**
 * On a terminal, one bar redrawn in place on stderr; otherwise (CI, a log file) a plain line
 * every few seconds, so logs stay readable. stdout is left to the summary.
 */
export function createProgress(io: Pick<CommandIo, 'stderr'>, clock: () => number = Date.now): ProgressReporter {
  const tty = io.stderr.isTTY === true;
  let last = clock();
  let drawn = false;
  return {
    update(snapshot) {
      const now = clock();
      if (now - last < (tty ? TTY_REDRAW_MS : PLAIN_LINE_MS)) return;
      last = now;
      const { fraction, text } = snapshot();
      if (!tty) {
        io.stderr.write(`${fraction === undefined ? '' : `${percent(fraction)} `}${text}\n`);
        return;
      }
      const line = fraction === undefined ? text : `${bar(fraction)} ${percent(fraction)} ${text}`;
      const width = (io.stderr.columns ?? 100) - 1;
      io.stderr.write(`\r\x1b[2K${line.slice(0, width)}`);
      drawn = true;
    },
    done() {
      if (drawn) io.stderr.write('\r\x1b[2K');
      drawn = false;
    },
  };
}

function bar(fraction: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
}

function percent(fraction: number): string {
  return `${Math.floor(Math.min(1, Math.max(0, fraction)) * 100)}%`.padStart(4);
}

/** Items per second since `startedAt`, for progress lines. */
export function ratePerSecond(count: number, startedAt: number, now: number = Date.now()): string {
  const seconds = Math.max(0.001, (now - startedAt) / 1000);
  return `${Math.round(count / seconds)}/s`;
}
