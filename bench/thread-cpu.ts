/**
 * CPU time of this process's main thread and of its other threads (libuv's pool, where argon2
 * runs; V8's compiler and GC helpers), from Linux's per-thread scheduler statistics
 * (/proc/self/task/<tid>/schedstat: nanoseconds on a CPU). process.cpuUsage() sums every
 * thread; this tells the hashing core's JavaScript from the hash itself. Undefined where
 * /proc is not there.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadCpu {
  mainMs: number;
  otherMs: number;
}

export function threadCpu(): ThreadCpu | undefined {
  try {
    let mainMs = 0;
    let otherMs = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      let ns: number;
      try {
        ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        continue; // a thread that ended meanwhile
      }
      if (Number(tid) === process.pid) mainMs += ns / 1e6;
      else otherMs += ns / 1e6;
    }
    return { mainMs, otherMs };
  } catch {
    return undefined;
  }
}

/** CPU used since `before`, main thread and the others apart. */
export function threadCpuSince(before: ThreadCpu | undefined): ThreadCpu | undefined {
  const now = threadCpu();
  if (before === undefined || now === undefined) return undefined;
  return { mainMs: now.mainMs - before.mainMs, otherMs: now.otherMs - before.otherMs };
}
