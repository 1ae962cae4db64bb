/**
 * A self-contained SVG (no chart library, no scripts, no external fonts): hash latency against
 * memory cost per pass count and backend, and throughput against clients with each measured
 * candidate's CPU ceiling; under them a legend per backend, and each recommendation with whether
 * it is stable. Pure.
 *
 * Readability rules (each has a test in test/bench-chart.test.ts): ceiling labels sit right of
 * the plot, never on the data; a candidate's throughput line, ceiling line and label share one
 * colour and one <g> titled with the candidate; the m axis starts near the smallest m measured,
 * not at 0; native and WASM have a legend column each.
 */
import { defaultSettings } from './grid.js';
import { tiedOutcomes } from './recommendation-stability.js';
import type { BenchBackend, BenchResult, Recommendation } from './types.js';

const W = 1100;
const PANEL = { width: 400, height: 300, top: 50 };
const LEFT = [70, 590] as const;
/** Ceiling labels go right of the throughput panel's frame, off the data lines. */
const CEILING_LABEL_X = LEFT[1] + PANEL.width + 6;
/** Least vertical distance between two ceiling labels (11 px text). */
const LABEL_GAP = 12;
const LEGEND_TOP = PANEL.top + PANEL.height + 62;
const ROW = 15;
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
const WARNING_COLOR = '#b00020';

/** One legend column per backend, in this order; WASM lines are dashed. */
const BACKENDS: ReadonlyArray<{ backend: BenchBackend; title: string }> = [
  { backend: 'native', title: 'native (solid lines)' },
  { backend: 'wasm', title: 'WASM (dashed lines)' },
];
const DASH: Record<'solid' | 'dashed' | 'dotted', string> = { solid: '', dashed: ' stroke-dasharray="6 4"', dotted: ' stroke-dasharray="2 3"' };

interface Point {
  x: number;
  y: number;
  lo?: number;
  hi?: number;
}
interface Series {
  backend: BenchBackend;
  /** Legend text, inside its backend's column (so without the backend's name). */
  label: string;
  color: string;
  points: Point[];
}
interface LegendEntry {
  backend: BenchBackend;
  label: string;
  color: string;
  line: keyof typeof DASH;
}
interface Scale {
  ticks: number[];
  /** Value -> 0..1 along the axis. */
  pos: (v: number) => number;
  label?: (v: number) => string;
}

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const r1 = (x: number) => Math.round(x * 10) / 10;
const dashOf = (backend: BenchBackend): keyof typeof DASH => (backend === 'wasm' ? 'dashed' : 'solid');

/**
 * 1, 2, 5 x 10^k steps, about `count` of them, from a multiple of the step at or below `min` to
 * one at or above `max`: an axis that starts near the data rather than at 0 (pass min 0 for that).
 */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (max <= min) {
    // One value: a band around it, not below 0 when it is positive.
    const pad = Math.abs(max) * 0.1 || 1;
    [min, max] = [min >= 0 ? Math.max(0, min - pad) : min - pad, max + pad];
  }
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw * (1 - 1e-9))!;
  const ticks: number[] = [];
  for (let v = Math.floor(min / step + 1e-9) * step; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks[ticks.length - 1]! + step).toPrecision(12)));
  return ticks;
}

/** Spreads labels wanted at `ys` (in order of the array) at least LABEL_GAP apart, keeping their order by y. */
export function spreadLabels(ys: number[], gap = LABEL_GAP): number[] {
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y);
  for (let k = 1; k < order.length; k++) order[k]!.y = Math.max(order[k]!.y, order[k - 1]!.y + gap);
  const out = new Array<number>(ys.length);
  for (const { y, i } of order) out[i] = y;
  return out;
}

function frame(left: number, title: string, xLabel: string, yLabel: string, x: Scale, yTicks: number[]): { svg: string; xPos: (v: number) => number; yPos: (v: number) => number } {
  const { width, height, top } = PANEL;
  const y0 = yTicks[0]!;
  const yMax = yTicks[yTicks.length - 1]!;
  const xPos = (v: number) => left + x.pos(v) * width;
  const yPos = (v: number) => top + height - ((v - y0) / (yMax - y0)) * height;
  const out: string[] = [];
  out.push(`<text x="${left + width / 2}" y="${top - 14}" class="title">${esc(title)}</text>`);
  out.push(`<rect x="${left}" y="${top}" width="${width}" height="${height}" class="frame"/>`);
  for (const t of yTicks) {
    out.push(`<line x1="${left}" x2="${left + width}" y1="${r1(yPos(t))}" y2="${r1(yPos(t))}" class="grid"/>`);
    out.push(`<text x="${left - 6}" y="${r1(yPos(t)) + 4}" class="tick" text-anchor="end">${t}</text>`);
  }
  for (const t of x.ticks) {
    out.push(`<line x1="${r1(xPos(t))}" x2="${r1(xPos(t))}" y1="${top + height}" y2="${top + height + 5}" class="axis"/>`);
    out.push(`<text x="${r1(xPos(t))}" y="${top + height + 18}" class="tick x-tick" text-anchor="middle">${esc(x.label ? x.label(t) : String(t))}</text>`);
  }
  out.push(`<text x="${left + width / 2}" y="${top + height + 38}" class="label">${esc(xLabel)}</text>`);
  out.push(`<text transform="translate(${left - 48},${top + height / 2}) rotate(-90)" class="label">${esc(yLabel)}</text>`);
  return { svg: out.join('\n'), xPos, yPos };
}

/** Native a little left and WASM a little right of their m, so equal m's interval bars do not cover each other. */
const DODGE: Record<BenchBackend, number> = { native: -3, wasm: 3 };

function seriesSvg(s: Series, xAt: (v: number) => number, yPos: (v: number) => number, dodge = false): string {
  const xPos = dodge ? (v: number) => xAt(v) + DODGE[s.backend] : xAt;
  const out: string[] = [];
  const pts = s.points.map((p) => `${r1(xPos(p.x))},${r1(yPos(p.y))}`).join(' ');
  out.push(`<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="2"${DASH[dashOf(s.backend)]}/>`);
  for (const p of s.points) {
    if (p.lo !== undefined && p.hi !== undefined) {
      out.push(`<line x1="${r1(xPos(p.x))}" x2="${r1(xPos(p.x))}" y1="${r1(yPos(p.lo))}" y2="${r1(yPos(p.hi))}" stroke="${s.color}" stroke-width="1"/>`);
    }
    out.push(`<circle cx="${r1(xPos(p.x))}" cy="${r1(yPos(p.y))}" r="3" fill="${s.color}"/>`);
  }
  return out.join('\n');
}

/** Below a panel: one column per backend, headed by its name; returns the SVG and its rows. */
function legend(left: number, entries: LegendEntry[]): { svg: string; rows: number } {
  const out: string[] = [];
  let rows = 0;
  const present = BACKENDS.filter((b) => entries.some((e) => e.backend === b.backend));
  present.forEach(({ backend, title }, column) => {
    const x = left + column * (PANEL.width / 2);
    out.push(`<text x="${x}" y="${LEGEND_TOP}" class="legend-head">${esc(title)}</text>`);
    const own = entries.filter((e) => e.backend === backend);
    own.forEach((e, i) => {
      const y = LEGEND_TOP + (i + 1) * ROW;
      out.push(
        `<g transform="translate(${x},${y})" class="legend-entry"><line x1="0" x2="18" y1="-4" y2="-4" stroke="${e.color}" stroke-width="2"${DASH[e.line]}/>` +
          `<text x="22" y="0" class="legend">${esc(e.label)}</text></g>`,
      );
    });
    rows = Math.max(rows, own.length + 1);
  });
  return { svg: out.join('\n'), rows };
}

/** Under the legends, per backend: the pick and its p95, then whether it is stable. */
function recommendationText(r: Recommendation, concurrency: number): { lines: string[]; warn: boolean } {
  const { memoryKiB, passes, lanes } = r.params;
  const params = `m=${memoryKiB} t=${passes} p=${lanes}`;
  const p95 = r.p95Ms === undefined ? '' : ` (p95 ${Math.round(r.p95Ms)} ms at ${concurrency} in flight)`;
  const head = r.fits ? `${r.backend}: ${params} recommended${p95}` : `${r.backend}: nothing fits the budget, so OWASP's ${params} (never weaker)`;
  const s = r.stability;
  if (!s) return { lines: [`${head}; stability not measured (a result from before the check)`], warn: !r.fits };
  const pct = (share: number) => `${Math.round(share * 100)}%`;
  const resamples = `${s.resamples} bootstrap resamples of the bursts and the machine's speed`;
  if (s.stable) return { lines: [`${head}; stable: the same in ${pct(s.share)} of ${resamples}`], warn: !r.fits };
  if (s.fewestBlocks !== undefined && s.fewestBlocks < 2) return { lines: [head, 'stability cannot be judged from one burst per candidate: measure more'], warn: true };
  const tied = tiedOutcomes(s, r.fits ? (r.candidateId ?? null) : null)
    .slice(0, 3)
    .map((o) => `${o.candidateId?.replace(/^\S+ /, '') ?? 'nothing fitting'} (${pct(o.share)})`);
  return { lines: [head, `NOT STABLE: the same in only ${pct(s.share)} of ${resamples}; tied with ${tied.join(', ') || '-'}: measure more`], warn: true };
}

export function renderChartSvg(result: BenchResult): string {
  // Left: median single-hash latency (with its bootstrap interval) against m, one line per backend x t x p.
  const groups = new Map<string, Series>();
  const shapes = [...new Set(result.candidates.map((c) => `${c.passes}/${c.lanes}`))];
  for (const c of result.candidates) {
    if (!c.single) continue;
    const shape = `t=${c.passes}${c.lanes > 1 ? ` p=${c.lanes}` : ''}`;
    const key = `${c.backend} ${shape}`;
    let s = groups.get(key);
    if (!s) {
      s = { backend: c.backend, label: shape, color: COLORS[shapes.indexOf(`${c.passes}/${c.lanes}`) % COLORS.length]!, points: [] };
      groups.set(key, s);
    }
    const w = c.single.wallMs;
    s.points.push({ x: c.memoryKiB / 1024, y: w.median, lo: w.medianCi95[0], hi: w.medianCi95[1] });
  }
  const latency = [...groups.values()].map((s) => ({ ...s, points: s.points.sort((a, b) => a.x - b.x) }));
  const mibs = result.candidates.map((c) => c.memoryKiB / 1024);
  const mTicks = niceTicks(Math.min(...mibs), Math.max(...mibs), 6);
  const mLo = mTicks[0]!;
  const mHi = mTicks[mTicks.length - 1]!;
  const latencyYs = latency.flatMap((s) => s.points.flatMap((p) => [p.y, p.hi ?? p.y]));
  const left = frame(LEFT[0], 'Hash latency (median of single hashes)', 'memory cost m, MiB', 'ms', { ticks: mTicks, pos: (v) => (v - mLo) / (mHi - mLo) }, niceTicks(0, Math.max(1e-9, ...latencyYs)));

  // Right: sustained throughput against clients (log2 axis), each candidate with its CPU ceiling.
  const byCandidate = new Map<string, Series & { id: string; ceiling?: number }>();
  for (const s of result.sustained) {
    let series = byCandidate.get(s.candidateId);
    if (!series) {
      const c = result.candidates.find((x) => x.id === s.candidateId);
      const backend: BenchBackend = c?.backend ?? (s.candidateId.startsWith('wasm') ? 'wasm' : 'native');
      const label = c ? `m=${c.memoryKiB} t=${c.passes} p=${c.lanes}` : s.candidateId;
      series = { id: s.candidateId, backend, label, color: COLORS[(byCandidate.size + 4) % COLORS.length]!, points: [], ...(c?.ceilingPerSecond !== undefined && { ceiling: c.ceilingPerSecond }) };
      byCandidate.set(s.candidateId, series);
    }
    series.points.push({ x: s.clients, y: s.throughputPerSecond });
  }
  const throughput = [...byCandidate.values()];
  const clients = [...new Set(result.sustained.map((s) => s.clients))].sort((a, b) => a - b);
  const cMin = Math.log2(Math.min(1, ...clients));
  const cMax = Math.log2(Math.max(2, ...clients));
  const throughputYs = throughput.flatMap((s) => [...s.points.map((p) => p.y), s.ceiling ?? 0]);
  const right = frame(
    LEFT[1],
    'Throughput under sustained load',
    'concurrent clients',
    'hashes per second',
    { ticks: clients, pos: (v) => (Math.log2(v) - cMin) / Math.max(1e-9, cMax - cMin) },
    niceTicks(0, Math.max(1e-9, ...throughputYs)),
  );
  const labelYs = spreadLabels(throughput.map((s) => right.yPos(s.ceiling ?? 0) + 4));
  const throughputSvg = throughput.map((s, i) => {
    const parts = [`<g class="candidate"><title>${esc(`${s.id}: throughput${s.ceiling === undefined ? '' : ` and its CPU ceiling, ${Math.round(s.ceiling)}/s`}`)}</title>`, seriesSvg(s, right.xPos, right.yPos)];
    if (s.ceiling !== undefined) {
      const y = r1(right.yPos(s.ceiling));
      parts.push(`<line x1="${LEFT[1]}" x2="${LEFT[1] + PANEL.width}" y1="${y}" y2="${y}" stroke="${s.color}" stroke-width="1.5"${DASH.dotted} class="ceiling"/>`);
      parts.push(`<text x="${CEILING_LABEL_X}" y="${r1(labelYs[i]!)}" class="ceiling-label" fill="${s.color}">${esc(`${s.backend === 'wasm' ? 'WASM' : 'native'} ${Math.round(s.ceiling)}/s`)}</text>`);
    }
    parts.push('</g>');
    return parts.join('\n');
  });

  const leftLegend = legend(LEFT[0], latency.map((s) => ({ backend: s.backend, label: s.label, color: s.color, line: dashOf(s.backend) })));
  const rightLegend = legend(
    LEFT[1],
    throughput.flatMap((s): LegendEntry[] => [
      { backend: s.backend, label: s.label, color: s.color, line: dashOf(s.backend) },
      ...(s.ceiling === undefined ? [] : [{ backend: s.backend, label: `its CPU ceiling, ${Math.round(s.ceiling)}/s`, color: s.color, line: 'dotted' as const }]),
    ]),
  );
  const recommendations = result.recommendations.map((r) => recommendationText(r, result.settings.concurrency));
  const recTop = LEGEND_TOP + Math.max(leftLegend.rows, rightLegend.rows, 1) * ROW + 14;
  const recLines = recommendations.flatMap((r) => r.lines.map((text, i) => ({ text, warn: r.warn, indent: i > 0 })));
  const footTop = recTop + recLines.length * 16 + 8;
  const H = footTop + 2 * 15 + 6;
  const e = result.environment;
  const st = result.settings;
  const full = defaultSettings(false);
  const short = st.rounds < full.rounds || st.burstRepeats < full.burstRepeats ? ' (a short run: confirm with a full one)' : '';
  const subtitle =
    `${e.cpuModel}, ${e.cores} cores${e.lambda?.memorySizeMB ? `, Lambda ${e.lambda.memorySizeMB} MB ${e.lambdaArchitecture}` : ''}; Node ${e.nodeVersion}; ${result.startedAt.slice(0, 10)}; ` +
    `${st.rounds} rounds, ${st.burstRepeats} bursts of ${st.concurrency} per candidate${short}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif">`,
    '<style>.title{font-size:15px;font-weight:bold;text-anchor:middle}.label{font-size:12px;text-anchor:middle;fill:#333}.tick{font-size:11px;fill:#555}' +
      '.legend{font-size:11px;fill:#222}.legend-head{font-size:11px;font-weight:bold;fill:#222}.ceiling-label{font-size:11px}.rec{font-size:12px;fill:#222}' +
      `.rec-warn{font-size:12px;font-weight:bold;fill:${WARNING_COLOR}}.frame{fill:#fff;stroke:#999}.grid{stroke:#e5e5e5}.axis{stroke:#999}</style>`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    left.svg,
    ...latency.map((s) => seriesSvg(s, left.xPos, left.yPos, true)),
    right.svg,
    ...throughputSvg,
    leftLegend.svg,
    rightLegend.svg,
    ...recLines.map((l, i) => `<text x="${LEFT[0] - 50 + (l.indent ? 20 : 0)}" y="${recTop + i * 16}" class="${l.warn ? 'rec-warn' : 'rec'}">${esc(l.text)}</text>`),
    `<text x="${W / 2}" y="${footTop + 15}" class="label">${esc(`passlane argon2id bench: ${subtitle}`)}</text>`,
    `<text x="${W / 2}" y="${footTop + 30}" class="label">${esc('Bars: bootstrap 95% interval of the median. Dotted: a candidate\'s CPU ceiling (usable cores / CPU-seconds per hash), labelled right of the plot.')}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
