/**
 * The bench chart (packages/server/src/cli/bench/chart-svg.ts) on a fixed result shaped like a --quick run on 2
 * cores: m 19-46 MiB, native and WASM, WASM's throughput flat at its CPU ceiling. Each defect
 * once seen in the rendered chart has a check here, read from the SVG's geometry.
 */
import { describe, expect, it } from 'vitest';
import { niceTicks, renderChartSvg, spreadLabels } from '../packages/server/src/cli/bench/chart-svg.js';
import { candidateId, defaultSettings } from '../packages/server/src/cli/bench/grid.js';
import { summarize } from '../packages/server/src/cli/bench/statistics.js';
import type { BenchBackend, BenchResult, CandidateResult, Recommendation, SustainedResult } from '../packages/server/src/cli/bench/types.js';

const PANEL_TOP = 50;
const PANEL_HEIGHT = 300;

function candidate(backend: BenchBackend, memoryKiB: number, passes: number): CandidateResult {
  const c = { backend, memoryKiB, passes, lanes: 1 };
  const ms = (memoryKiB / 19456) * passes * (backend === 'native' ? 4 : 9);
  return {
    ...c,
    id: candidateId(c),
    meetsOwaspFloor: true,
    single: { wallMs: summarize([ms * 0.95, ms, ms * 1.1]), cpuMs: summarize([ms]) },
    ceilingPerSecond: (backend === 'native' ? 2 : 1) / (ms / 1000),
    memoryNeedMiB: 100,
  };
}

function sustained(c: CandidateResult, perSecond: number[]): SustainedResult[] {
  return [1, 2, 4, 8, 16].map((clients, i) => ({
    candidateId: c.id,
    clients,
    completed: 40,
    seconds: 1,
    throughputPerSecond: perSecond[i]!,
    wallMs: summarize([10]),
    cpuMsPerHash: 10,
    ceilingPerSecond: c.ceilingPerSecond!,
    peakRssMiB: 200,
  }));
}

function fixture(recommendations: Recommendation[] = []): BenchResult {
  const candidates = (['native', 'wasm'] as const).flatMap((b) => [19456, 47104].flatMap((m) => [1, 2, 3].map((t) => candidate(b, m, t))));
  const native = candidates.find((c) => c.id === 'native m=47104 t=3 p=1')!;
  const wasm = candidates.find((c) => c.id === 'wasm m=19456 t=3 p=1')!;
  const wasmCeiling = wasm.ceilingPerSecond!;
  return {
    schema: 'passlane-bench/1',
    startedAt: '2026-12-01T00:00:00.000Z',
    finishedAt: '2026-12-01T00:00:30.000Z',
    durationSeconds: 30,
    environment: {
      cpuModel: 'Test CPU',
      cores: 2,
      totalMemoryMiB: 4096,
      memoryLimitMiB: 4096,
      runtime: 'node',
      nodeVersion: '20.0.0',
      platform: 'linux',
      arch: 'x64',
      lambdaArchitecture: 'x86_64',
      uvThreadpoolSize: 4,
      loadAverage1m: 0.5,
      libraries: {},
    },
    settings: defaultSettings(true),
    memory: { baselineRssMiB: 60, peakRssMiB: 300, maxRssMiB: 300 },
    candidates,
    // WASM sits at its ceiling from one client on: where the old labels were unreadable.
    sustained: [...sustained(native, [28, 53, 40, 40, 40]), ...sustained(wasm, [wasmCeiling - 1, wasmCeiling, wasmCeiling, wasmCeiling, wasmCeiling])],
    recommendations,
    truncated: false,
    notes: [],
  };
}

interface TextAt {
  x: number;
  y: number;
  attrs: string;
  text: string;
}

function texts(svg: string): TextAt[] {
  return [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)"([^>]*)>([^<]*)<\/text>/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]), attrs: m[3]!, text: m[4]! }));
}

/** Left edge and right edge of each panel's frame, left panel first. */
function frames(svg: string): Array<{ left: number; right: number }> {
  return [...svg.matchAll(/<rect x="([\d.]+)" y="50" width="([\d.]+)" height="300"/g)].map((m) => ({ left: Number(m[1]), right: Number(m[1]) + Number(m[2]) }));
}

describe('bench chart', () => {
  it('puts each CPU ceiling label right of the throughput plot, apart from the others, never on the data', () => {
    const svg = renderChartSvg(fixture());
    const plot = frames(svg)[1]!;
    const labels = texts(svg).filter((t) => /\d+\/s$/.test(t.text) && t.y >= PANEL_TOP && t.y <= PANEL_TOP + PANEL_HEIGHT + 10);
    expect(labels.length).toBe(2);
    for (const label of labels) {
      expect(label.x).toBeGreaterThan(plot.right);
      expect(label.attrs).not.toMatch(/text-anchor="(end|middle)"/);
    }
    expect(Math.abs(labels[0]!.y - labels[1]!.y)).toBeGreaterThanOrEqual(11);
    expect(spreadLabels([100, 95, 200])).toEqual([107, 95, 200]);
  });

  it("ties each ceiling line and label to its candidate: one group, one colour, the candidate's name and value", () => {
    const result = fixture();
    const svg = renderChartSvg(result);
    for (const id of ['native m=47104 t=3 p=1', 'wasm m=19456 t=3 p=1']) {
      const ceiling = Math.round(result.candidates.find((c) => c.id === id)!.ceilingPerSecond!);
      const group = [...svg.matchAll(/<g class="candidate"><title>([^<]*)<\/title>([\s\S]*?)<\/g>/g)].find((m) => m[1]!.startsWith(`${id}:`));
      expect(group, id).toBeDefined();
      expect(group![1]).toContain(`CPU ceiling, ${ceiling}/s`);
      const colour = /<polyline [^>]*stroke="(#[0-9a-f]{6})"/.exec(group![2]!)![1];
      expect(group![2]).toMatch(new RegExp(`<line [^>]*stroke="${colour}"[^>]*stroke-dasharray="2 3"`));
      expect(group![2]).toMatch(new RegExp(`fill="${colour}">${id.startsWith('wasm') ? 'WASM' : 'native'} ${ceiling}/s</text>`));
      // And in the legend, under its backend, in its colour.
      expect(svg).toMatch(new RegExp(`stroke="${colour}" stroke-width="2" stroke-dasharray="2 3"/><text x="22" y="0" class="legend">its CPU ceiling, ${ceiling}/s`));
    }
  });

  it('starts the memory axis near the smallest m measured, not at 0', () => {
    const svg = renderChartSvg(fixture());
    const xTicks = texts(svg)
      .filter((t) => t.y === PANEL_TOP + PANEL_HEIGHT + 18 && t.x < frames(svg)[1]!.left)
      .map((t) => Number(t.text));
    expect(xTicks[0]).toBeGreaterThan(0);
    expect(xTicks[0]).toBeLessThanOrEqual(19);
    expect(xTicks[0]).toBeGreaterThanOrEqual(10);
    expect(xTicks[xTicks.length - 1]).toBeGreaterThanOrEqual(46);
    expect(niceTicks(19, 46, 6)).toEqual([15, 20, 25, 30, 35, 40, 45, 50]);
    expect(niceTicks(0, 39)).toEqual([0, 10, 20, 30, 40]);
    expect(niceTicks(0.0625, 0.0625)).toEqual([0.055, 0.06, 0.065, 0.07]);
  });

  it('gives native and WASM a legend column each: solid lines in one, dashed in the other', () => {
    const svg = renderChartSvg(fixture());
    const entries = [...svg.matchAll(/<g transform="translate\(([\d.]+),([\d.]+)\)"[^>]*><line [^>]*?(stroke-dasharray="([\d ]+)")?\/><text[^>]*>([^<]*)<\/text><\/g>/g)].map((m) => ({
      x: Number(m[1]),
      dash: m[4] ?? 'solid',
      text: m[5]!,
    }));
    expect(entries.length).toBeGreaterThanOrEqual(6 + 4);
    const columns = new Map<number, Set<string>>();
    for (const e of entries.filter((e) => e.dash !== '2 3')) columns.set(e.x, (columns.get(e.x) ?? new Set()).add(e.dash));
    expect(columns.size).toBe(4); // two per panel
    for (const dashes of columns.values()) expect(dashes.size).toBe(1);
    for (const [x, dashes] of columns) {
      const head = texts(svg).find((t) => t.x === x && /legend-head/.test(t.attrs));
      expect(head?.text).toMatch(dashes.has('solid') ? /^native/ : /^WASM/);
    }
  });

  it('says under the chart which recommendation is not stable, and what it is tied with', () => {
    const stable: Recommendation = {
      backend: 'native',
      fits: true,
      params: { memoryKiB: 47104, passes: 3, lanes: 1 },
      candidateId: 'native m=47104 t=3 p=1',
      p95Ms: 199,
      rejected: [],
      reasoning: [],
      stability: { resamples: 2000, share: 1, stable: true, outcomes: [{ candidateId: 'native m=47104 t=3 p=1', share: 1 }] },
    };
    const tied: Recommendation = {
      ...stable,
      backend: 'wasm',
      params: { memoryKiB: 19456, passes: 3, lanes: 1 },
      candidateId: 'wasm m=19456 t=3 p=1',
      p95Ms: 290,
      stability: {
        resamples: 2000,
        share: 0.62,
        stable: false,
        outcomes: [
          { candidateId: 'wasm m=19456 t=3 p=1', share: 0.62 },
          { candidateId: 'wasm m=47104 t=1 p=1', share: 0.38 },
        ],
      },
    };
    const lines = texts(renderChartSvg(fixture([stable, tied]))).map((t) => t.text);
    expect(lines).toContain('native: m=47104 t=3 p=1 recommended (p95 199 ms at 10 in flight); stable: the same in 100% of 2000 bootstrap resamples of the bursts and the machine\'s speed');
    expect(lines).toContain('wasm: m=19456 t=3 p=1 recommended (p95 290 ms at 10 in flight)');
    expect(lines).toContain("NOT STABLE: the same in only 62% of 2000 bootstrap resamples of the bursts and the machine's speed; tied with m=47104 t=1 p=1 (38%): measure more");
    expect(lines.join('\n')).toMatch(/9 rounds, 2 bursts of 10 per candidate \(a short run: confirm with a full one\)/);
  });
});
