/**
 * A self-contained SVG (no chart library, no scripts, no external fonts): hash latency against
 * memory cost per pass count and backend, and throughput against clients. Pure.
 */
import type { BenchResult } from './types.js';

const W = 1000;
const PANEL = { width: 420, height: 300, top: 50 };
const LEGEND_TOP = PANEL.top + PANEL.height + 62;
const LEFT = [70, 570];
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];

interface Point {
  x: number;
  y: number;
  lo?: number;
  hi?: number;
}
interface Series {
  label: string;
  color: string;
  dashed: boolean;
  points: Point[];
}

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const r1 = (x: number) => Math.round(x * 10) / 10;

/** 1, 2, 5 x 10^k steps, about `count` of them, covering [0, max]. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks[ticks.length - 1]! + step).toPrecision(12)));
  return ticks;
}

function panel(
  left: number,
  title: string,
  xLabel: string,
  yLabel: string,
  series: Series[],
  x: { ticks: number[]; pos: (v: number) => number; label?: (v: number) => string },
  extra: { yAtLeast?: number; draw?: (yPos: (v: number) => number) => string } = {},
): string {
  const { width, height, top } = PANEL;
  const ys = series.flatMap((s) => s.points.flatMap((p) => [p.y, p.hi ?? p.y]));
  const yTicks = niceTicks(Math.max(1e-9, extra.yAtLeast ?? 0, ...ys));
  const yMax = yTicks[yTicks.length - 1]!;
  const xPos = (v: number) => left + x.pos(v) * width;
  const yPos = (v: number) => top + height - (v / yMax) * height;
  const out: string[] = [];
  out.push(`<text x="${left + width / 2}" y="${top - 14}" class="title">${esc(title)}</text>`);
  out.push(`<rect x="${left}" y="${top}" width="${width}" height="${height}" class="frame"/>`);
  for (const t of yTicks) {
    out.push(`<line x1="${left}" x2="${left + width}" y1="${r1(yPos(t))}" y2="${r1(yPos(t))}" class="grid"/>`);
    out.push(`<text x="${left - 6}" y="${r1(yPos(t)) + 4}" class="tick" text-anchor="end">${t}</text>`);
  }
  for (const t of x.ticks) {
    out.push(`<line x1="${r1(xPos(t))}" x2="${r1(xPos(t))}" y1="${top + height}" y2="${top + height + 5}" class="axis"/>`);
    out.push(`<text x="${r1(xPos(t))}" y="${top + height + 18}" class="tick" text-anchor="middle">${esc(x.label ? x.label(t) : String(t))}</text>`);
  }
  out.push(`<text x="${left + width / 2}" y="${top + height + 38}" class="label">${esc(xLabel)}</text>`);
  out.push(`<text transform="translate(${left - 48},${top + height / 2}) rotate(-90)" class="label">${esc(yLabel)}</text>`);
  out.push(extra.draw?.(yPos) ?? '');
  for (const s of series) {
    const pts = s.points.map((p) => `${r1(xPos(p.x))},${r1(yPos(p.y))}`).join(' ');
    out.push(`<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    for (const p of s.points) {
      if (p.lo !== undefined && p.hi !== undefined) {
        out.push(`<line x1="${r1(xPos(p.x))}" x2="${r1(xPos(p.x))}" y1="${r1(yPos(p.lo))}" y2="${r1(yPos(p.hi))}" stroke="${s.color}" stroke-width="1"/>`);
      }
      out.push(`<circle cx="${r1(xPos(p.x))}" cy="${r1(yPos(p.y))}" r="3" fill="${s.color}"/>`);
    }
  }
  // Legend below the axis label; two entries a row leave room for labels like "native m=47104 t=3 p=1".
  series.forEach((s, i) => {
    const lx = left + (i % LEGEND_PER_ROW) * (width / LEGEND_PER_ROW);
    const ly = LEGEND_TOP + Math.floor(i / LEGEND_PER_ROW) * 15;
    out.push(
      `<g transform="translate(${lx},${ly})"><line x1="0" x2="18" y1="-4" y2="-4" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>` +
        `<text x="22" y="0" class="legend">${esc(s.label)}</text></g>`,
    );
  });
  return out.join('\n');
}

const LEGEND_PER_ROW = 2;

export function renderChartSvg(result: BenchResult): string {
  // Left: median single-hash latency (with its bootstrap interval) against m, one line per backend x t x p.
  const groups = new Map<string, Series>();
  const passesList = [...new Set(result.candidates.map((c) => `${c.passes}/${c.lanes}`))];
  for (const c of result.candidates) {
    if (!c.single) continue;
    const key = `${c.backend} t=${c.passes}${c.lanes > 1 ? ` p=${c.lanes}` : ''}`;
    let s = groups.get(key);
    if (!s) {
      s = { label: key, color: COLORS[passesList.indexOf(`${c.passes}/${c.lanes}`) % COLORS.length]!, dashed: c.backend === 'wasm', points: [] };
      groups.set(key, s);
    }
    const w = c.single.wallMs;
    s.points.push({ x: c.memoryKiB / 1024, y: w.median, lo: w.medianCi95[0], hi: w.medianCi95[1] });
  }
  const latency = [...groups.values()].map((s) => ({ ...s, points: s.points.sort((a, b) => a.x - b.x) }));
  const mTicks = niceTicks(Math.max(1, ...result.candidates.map((c) => c.memoryKiB / 1024)));
  const mMax = mTicks[mTicks.length - 1]!;

  // Right: sustained throughput against clients (log2 axis), with each candidate's CPU ceiling dashed.
  const byCandidate = new Map<string, Series>();
  for (const s of result.sustained) {
    let series = byCandidate.get(s.candidateId);
    if (!series) {
      series = { label: s.candidateId, color: COLORS[(byCandidate.size + 4) % COLORS.length]!, dashed: s.candidateId.startsWith('wasm'), points: [] };
      byCandidate.set(s.candidateId, series);
    }
    series.points.push({ x: s.clients, y: s.throughputPerSecond });
  }
  const throughput = [...byCandidate.values()];
  const clients = [...new Set(result.sustained.map((s) => s.clients))].sort((a, b) => a - b);
  const cMin = Math.log2(Math.min(1, ...clients));
  const cMax = Math.log2(Math.max(2, ...clients));
  const ceilings = throughput.map((s) => ({
    color: s.color,
    value: result.candidates.find((c) => c.id === s.label)?.ceilingPerSecond,
  }));
  const legendRows = Math.ceil(Math.max(latency.length, throughput.length, 1) / LEGEND_PER_ROW);
  const H = LEGEND_TOP + legendRows * 15 + 24;
  const e = result.environment;
  const subtitle = `${e.cpuModel}, ${e.cores} cores${e.lambda?.memorySizeMB ? `, Lambda ${e.lambda.memorySizeMB} MB ${e.lambdaArchitecture}` : ''}; Node ${e.nodeVersion}; ${result.startedAt.slice(0, 10)}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif">`,
    '<style>.title{font-size:15px;font-weight:bold;text-anchor:middle}.label{font-size:12px;text-anchor:middle;fill:#333}.tick{font-size:11px;fill:#555}.legend{font-size:11px;fill:#222}.frame{fill:#fff;stroke:#999}.grid{stroke:#e5e5e5}.axis{stroke:#999}</style>',
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="${H - 8}" class="label">${esc(`passlane argon2id bench: ${subtitle}. Solid: native, dashed: WASM. Bars: bootstrap 95% interval of the median.`)}</text>`,
    panel(LEFT[0]!, 'Hash latency (median of single hashes)', 'memory cost m, MiB', 'ms', latency, {
      ticks: mTicks,
      pos: (v) => v / mMax,
    }),
    panel(
      LEFT[1]!,
      'Throughput under sustained load',
      'concurrent clients',
      'hashes per second',
      throughput,
      { ticks: clients, pos: (v) => (Math.log2(v) - cMin) / Math.max(1e-9, cMax - cMin) },
      {
        // Keep the ceiling lines inside the axis range.
        yAtLeast: Math.max(0, ...ceilings.map((c) => c.value ?? 0)),
        draw: (yPos) =>
          ceilings
          .filter((c) => c.value !== undefined)
          .map(
            (c) =>
              `<line x1="${LEFT[1]}" x2="${LEFT[1]! + PANEL.width}" y1="${r1(yPos(c.value!))}" y2="${r1(yPos(c.value!))}" stroke="${c.color}" stroke-width="1" stroke-dasharray="2 3" opacity="0.8"/>` +
              `<text x="${LEFT[1]! + PANEL.width - 4}" y="${r1(yPos(c.value!)) - 3}" class="tick" text-anchor="end">CPU ceiling ${Math.round(c.value!)}/s</text>`,
          )
          .join('\n'),
      },
    ),
    '</svg>',
    '',
  ].join('\n');
}
