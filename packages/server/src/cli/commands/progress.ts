import type { CommandIo } from './command-io.js';

export interface ProgressSnapshot {
  /** 0..1 when the total is known (import: bytes read of the file size); with it, the time left. */
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
/** Below this share done, an estimate of the time left would mostly be noise: none is shown. */
const ESTIMATE_FROM = 0.02;

/**
 * On a terminal, one bar redrawn in place on stderr; otherwise (CI, a log file) a plain line
 * every few seconds, so logs stay readable. stdout is left to the summary. With a fraction, the
 * time left at the pace so far (`~40 s left`).
 */
export function createProgress(io: Pick<CommandIo, 'stderr'>, clock: () => number = Date.now): ProgressReporter {
  const tty = io.stderr.isTTY === true;
  const startedAt = clock();
  let last = startedAt;
  let drawn = false;
  return {
    update(snapshot) {
      const now = clock();
      if (now - last < (tty ? TTY_REDRAW_MS : PLAIN_LINE_MS)) return;
      last = now;
      const snap = snapshot();
      const { fraction } = snap;
      const text = `${snap.text}${fraction === undefined ? '' : timeLeft(fraction, now - startedAt)}`;
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

/** `, ~40 s left` (or `~3 min`, `~2 h`) at the pace so far; nothing too early to tell. */
export function timeLeft(fraction: number, elapsedMs: number): string {
  if (!(fraction >= ESTIMATE_FROM) || fraction >= 1) return '';
  const seconds = Math.ceil(((elapsedMs / fraction) * (1 - fraction)) / 1000);
  const shown = seconds < 90 ? `${seconds} s` : seconds < 90 * 60 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds / 3600)} h`;
  return `, ~${shown} left`;
}

function percent(fraction: number): string {
  return `${Math.floor(Math.min(1, Math.max(0, fraction)) * 100)}%`.padStart(4);
}

/** Items per second since `startedAt`, for progress lines. */
export function ratePerSecond(count: number, startedAt: number, now: number = Date.now()): string {
  const seconds = Math.max(0.001, (now - startedAt) / 1000);
  return `${Math.round(count / seconds)}/s`;
}
