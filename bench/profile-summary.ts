/**
 * Summarises V8 CPU profiles (.cpuprofile JSON, from `node --cpu-prof` or the inspector's
 * Profiler): self time by group (the AWS SDK and its HTTP, jose, hono, middy, Powertools, the
 * hashing core, the argon2 binding's loader, our code by folder, GC, Node's internals) and the
 * functions that spend the most. A bundle's frames are mapped back to their sources through the
 * source map beside it (`<file>.map`, as esbuild writes with `sourcemap: true`).
 *
 *   npx tsx bench/profile-summary.ts <a.cpuprofile> [<b.cpuprofile> ...] [--top 20] [--per N] [--wall]
 *
 * `--per N` divides every figure by N (the operations the profile covers), so two profiles of
 * different lengths compare per operation. Self time is what a function spends in its own code;
 * a builtin without a script (JSON.parse, a TypedArray's copy) is charged to the nearest caller
 * that has one, so it lands in the group that called it; Node's own modules (node:*) are split by
 * the nearest caller outside them (the SDK's sockets, the signer's crypto). The profile samples the main thread
 * only: argon2 runs on libuv's threads and shows here as idle time.
 *
 * Each sample counts as the profile's median sampling interval, not the time since the sample
 * before it: on a loaded machine the profiler's signal waits while the thread is descheduled,
 * and the time it waited would be charged to whatever ran next. Counting samples measures time
 * on the CPU; `--wall` charges the gaps instead. A measurement: exits 0.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code came from: its source file (relative to the repository where it can be) and function. */
interface Origin {
  source: string;
  functionName: string;
  line: number;
}

export interface ProfileSummary {
  /** Sampled time in ms, idle included. */
  totalMs: number;
  idleMs: number;
  /** Self ms by group, idle left out. */
  groups: Map<string, number>;
  /** Self ms by function (`name (source:line)`), idle left out. */
  functions: Map<string, number>;
}

const maps = new Map<string, SourceMap | undefined>();

/** The source map beside a bundle file, read once; undefined when it has none. */
function sourceMapOf(url: string): SourceMap | undefined {
  if (!url.startsWith('file://')) return undefined;
  const file = fileURLToPath(url);
  if (!maps.has(file)) {
    const mapFile = `${file}.map`;
    maps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload) : undefined);
  }
  return maps.get(file);
}

/** A source path as the group rules read it: under node_modules from its package, else relative to the repository. */
function normalise(source: string, bundleFile: string): string {
  const path = source.startsWith('file://') ? fileURLToPath(source) : resolve(dirname(bundleFile), source);
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) return path.slice(inModules);
  return relative(root, path);
}

function originOf(frame: CallFrame): Origin {
  const map = sourceMapOf(frame.url);
  if (map !== undefined) {
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number; name?: string };
    if (entry.originalSource !== undefined) {
      return {
        source: normalise(entry.originalSource, fileURLToPath(frame.url)),
        functionName: entry.name ?? frame.functionName,
        line: (entry.originalLine ?? 0) + 1,
      };
    }
  }
  // A bundle's code its map does not place: esbuild's own helpers (CommonJS interop, exports).
  if (map !== undefined) return { source: ESBUILD_HELPERS, functionName: frame.functionName, line: frame.lineNumber + 1 };
  const source = frame.url.startsWith('file://') ? normalise(frame.url, fileURLToPath(frame.url)) : frame.url;
  return { source, functionName: frame.functionName, line: frame.lineNumber + 1 };
}

const ESBUILD_HELPERS = "(esbuild's module helpers)";

/** Ordered rules: the first whose pattern matches a source names its group. */
const GROUPS: Array<[RegExp, string]> = [
  [/^node_modules\/(@aws-sdk|@smithy|@aws-crypto|@aws\/)/, 'AWS SDK and its HTTP (@aws-sdk, @smithy)'],
  [/^node_modules\/jose\//, 'jose'],
  [/^node_modules\/hono\//, 'hono'],
  [/^node_modules\/@middy\//, 'middy'],
  [/^node_modules\/@aws-lambda-powertools\//, 'Powertools (logger, metrics)'],
  [/^node_modules\/valibot\//, 'valibot'],
  [/^node_modules\/@noble\//, '@noble/hashes'],
  [/^node_modules\/@node-rs\//, 'argon2/bcrypt binding (its JS loader)'],
  [/^node_modules\/@simplewebauthn\/|^node_modules\/@peculiar\/|^node_modules\/@levischuck\//, '@simplewebauthn and its ASN.1'],
  [/^node_modules\/([^/]+)\//, 'other packages'],
  [/^packages\/passlane\/src\//, 'hashing core (packages/passlane)'],
  [/^packages\/server\/src\/runtimes\/lambda\/direct-requests/, 'server: runtimes/lambda (DynamoDB short path)'],
  [/^packages\/server\/src\/(features\/[^/]+)\//, 'server: $1'],
  [/^packages\/server\/src\/([^/]+\/[^/]+)\/[^/]+$/, 'server: $1'],
  [/^packages\/server\/src\/([^/]+)\//, 'server: $1'],
  [/^(bench|test)\//, 'bench harness'],
  [/^node:/, 'Node internals (node:*)'],
  // Mostly the CommonJS modules' wrappers: a factory's lazy compilation is charged to its caller.
  [/^\(esbuild's module helpers\)$/, "esbuild's CommonJS wrappers (compiling each module's factory on first require)"],
];

export function groupOf(source: string, functionName: string): string {
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return '(program): V8 and native code outside JS';
  if (functionName === '(idle)') return '(idle)';
  if (functionName.startsWith('(top-level')) return 'top-level code of the ES modules esbuild hoists into one scope';
  for (const [pattern, name] of GROUPS) {
    const match = pattern.exec(source);
    if (match) return name.replace('$1', match[1] ?? '');
  }
  return source === '' ? 'builtins without a caller' : `other: ${source}`;
}

export function summarise(profile: CpuProfile, options: { wall?: boolean } = {}): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const origins = new Map<number, Origin>();
  const origin = (id: number): Origin => {
    let found = origins.get(id);
    if (found === undefined) {
      found = originOf(byId.get(id)!.callFrame);
      origins.set(id, found);
    }
    return found;
  };
  /** The node itself, or for a builtin without a script the nearest caller with one. */
  const charged = (id: number): number => {
    const name = byId.get(id)!.callFrame.functionName;
    if (name.startsWith('(')) return id; // GC, (program), (idle), the hoisted top level
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if (byId.get(at)!.callFrame.url !== '') return at;
    }
    return id;
  };
  /** The group of the nearest caller outside Node's own modules: who Node's work (sockets, crypto) was for. */
  const callers = new Map<number, string>();
  const callerGroup = (id: number): string => {
    let found = callers.get(id);
    if (found !== undefined) return found;
    found = 'no caller of ours';
    for (let at = parent.get(id); at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (frame.url === '' || frame.url.startsWith('node:')) continue;
      const from = origin(at);
      found = groupOf(from.source, from.functionName);
      break;
    }
    callers.set(id, found);
    return found;
  };
  const chargedOf = new Map<number, number>();
  const groups = new Map<string, number>();
  const functions = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  // timeDeltas[i] is the time before sample i; with `wall`, a sample stands for the gap after it.
  const deltas = profile.timeDeltas.slice(1).sort((a, b) => a - b);
  const intervalMs = (deltas[Math.floor(deltas.length / 2)] ?? 0) / 1000;
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = options.wall === true ? (profile.timeDeltas[i + 1] ?? 0) / 1000 : intervalMs;
    totalMs += ms;
    const id = profile.samples[i]!;
    let target = chargedOf.get(id);
    if (target === undefined) chargedOf.set(id, (target = charged(id)));
    const self = byId.get(id)!.callFrame.functionName;
    const at = origin(target);
    let group = groupOf(at.source, self.startsWith('(') ? self : at.functionName);
    if (at.source.startsWith('node:')) {
      const caller = callerGroup(target);
      // Called from the event loop itself: a socket's data, a timer, the promise jobs.
      group = caller === 'no caller of ours' ? 'Node event loop (sockets, timers, promise jobs)' : `${group}, for ${caller}`;
    }
    if (group === '(idle)') {
      idleMs += ms;
      continue;
    }
    groups.set(group, (groups.get(group) ?? 0) + ms);
    const label = self.startsWith('(') ? self : `${at.functionName || '(anonymous)'} (${at.source}:${at.line})`;
    functions.set(label, (functions.get(label) ?? 0) + ms);
  }
  return { totalMs, idleMs, groups, functions };
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

const fixed = (value: number) => (value >= 10 ? value.toFixed(1) : value >= 1 ? value.toFixed(2) : value.toFixed(3));

/** Group table (and top functions) of one or more profiles, side by side; figures divided by `per[i]`. */
export function formatSummaries(named: Array<{ name: string; summary: ProfileSummary; per: number }>, top = 20): string {
  const groupNames = [...new Set(named.flatMap(({ summary }) => [...summary.groups.keys()]))];
  const busy = (s: ProfileSummary) => [...s.groups.values()].reduce((a, b) => a + b, 0);
  groupNames.sort((a, b) => (named[0]!.summary.groups.get(b) ?? 0) - (named[0]!.summary.groups.get(a) ?? 0));
  const header = ['self ms per operation', ...named.map(({ name }) => name)];
  const rows = groupNames.map((group) => [group, ...named.map(({ summary, per }) => fixed((summary.groups.get(group) ?? 0) / per))]);
  rows.push(['main thread busy (all of the above)', ...named.map(({ summary, per }) => fixed(busy(summary) / per))]);
  rows.push(['main thread idle (waiting: argon2 on libuv threads, DynamoDB)', ...named.map(({ summary, per }) => fixed(summary.idleMs / per))]);
  const lines = [markdownTable(header, rows)];
  for (const { name, summary, per } of named) {
    const functions = [...summary.functions.entries()].sort(([, a], [, b]) => b - a).slice(0, top);
    lines.push('', `top ${functions.length} functions by self time, ${name}:`, '');
    lines.push(markdownTable(['function (source:line)', 'self ms per operation', 'share of busy'], functions.map(([fn, ms]) => [fn, fixed(ms / per), `${((100 * ms) / busy(summary)).toFixed(1)}%`])));
  }
  return lines.join('\n');
}

export function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

function main(): void {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' }, per: { type: 'string' }, wall: { type: 'boolean' } } });
  if (positionals.length === 0) {
    console.error('usage: npx tsx bench/profile-summary.ts <a.cpuprofile> [...] [--top 20] [--per N] [--wall]');
    process.exitCode = 1;
    return;
  }
  const per = Number(values.per ?? 1) || 1;
  const named = positionals.map((file) => ({ name: relative(process.cwd(), file), summary: summarise(readProfile(file), { wall: values.wall === true }), per }));
  console.log(formatSummaries(named, Number(values.top ?? 20) || 20));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
