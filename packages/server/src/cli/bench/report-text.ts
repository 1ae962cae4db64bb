/** The terminal table and the Markdown report of one bench result. Pure. */
import { markdownTable, mib, ms, num, textTable } from './format.js';
import { STABLE_SHARE, tiedOutcomes } from './recommendation-stability.js';
import type { BenchResult, Recommendation } from './types.js';

function candidateRows(result: BenchResult): { header: string[]; rows: string[][] } {
  const n = result.settings.concurrency;
  const header = ['candidate', 'floor', 'median ms', '95% CI', 'p95 ms', 'CPU ms', `burst ${n} p95`, '95% CI', 'mem model MiB', 'burst RSS MiB', 'ceiling/s'];
  const rows = result.candidates.map((c) => [
    c.id,
    c.meetsOwaspFloor ? 'ok' : 'below',
    ms(c.single?.wallMs.median),
    c.single ? `${ms(c.single.wallMs.medianCi95[0])}-${ms(c.single.wallMs.medianCi95[1])}` : '-',
    ms(c.single?.wallMs.p95),
    ms(c.single?.cpuMs.median),
    ms(c.burst?.wallMs.p95),
    c.burst?.p95Ci95 ? `${ms(c.burst.p95Ci95[0])}-${ms(c.burst.p95Ci95[1])}` : '-',
    num(c.memoryNeedMiB),
    num(c.burst?.peakRssMiB),
    num(c.ceilingPerSecond),
  ]);
  return { header, rows };
}

function sustainedRows(result: BenchResult): { header: string[]; rows: string[][] } {
  const header = ['candidate', 'clients', 'hashes', 'per s', 'p50 ms', 'p95 ms', 'CPU ms/hash', 'ceiling/s', 'peak RSS MiB'];
  const rows = result.sustained.map((s) => [
    s.candidateId,
    String(s.clients),
    String(s.completed),
    num(s.throughputPerSecond, 1),
    ms(s.wallMs.median),
    ms(s.wallMs.p95),
    ms(s.cpuMsPerHash),
    num(s.ceilingPerSecond),
    num(s.peakRssMiB),
  ]);
  return { header, rows };
}

function environmentLine(result: BenchResult): string {
  const e = result.environment;
  const lambda = e.lambda?.memorySizeMB ? `, Lambda ${e.lambda.memorySizeMB} MB ${e.lambdaArchitecture}` : '';
  return (
    `${e.cpuModel}, ${e.cores} cores, ${e.memoryLimitMiB} MiB limit${lambda}; Node ${e.nodeVersion}${e.runtime === 'node' ? '' : ` (${e.runtime})`} ${e.platform}/${e.arch}; ` +
    `@node-rs/argon2 ${e.libraries['@node-rs/argon2']}, passlane ${e.libraries.passlane}; load average ${e.loadAverage1m.toFixed(2)} at start`
  );
}

const pct = (share: number) => `${Math.round(share * 100)}%`;

/**
 * Whether the pick survives the measurement's noise (recommendation-stability.ts): a line when it
 * does, a WARNING naming the candidates it is statistically tied with when it does not.
 */
export function stabilityLines(r: Recommendation): string[] {
  const s = r.stability;
  if (!s) return [];
  const own = r.fits ? (r.candidateId ?? null) : null;
  const what = `${own ?? 'nothing fits (the OWASP fallback)'} comes out`;
  const speed = s.speedRange ? ` and of the machine's speed (x${s.speedRange[0].toFixed(2)}-x${s.speedRange[1].toFixed(2)} across the rounds)` : '';
  const resampled = `${s.resamples} bootstrap resamples of the measured bursts${speed}`;
  if (s.stable) return [`  stable within this run: ${what} in ${pct(s.share)} of ${resampled}`];
  if (s.fewestBlocks !== undefined && s.fewestBlocks < 2) {
    return [`WARNING (${r.backend}): one burst per candidate shows no spread, so whether this recommendation is stable cannot be judged: measure more bursts.`];
  }
  const tied = tiedOutcomes(s, own).map((o) => `${o.candidateId ?? 'nothing fits (the OWASP fallback)'} (${pct(o.share)})`);
  return [
    `WARNING (${r.backend}): the recommendation is not stable: ${what} in only ${pct(s.share)} of ${resampled} ` +
      `(stable: ${pct(STABLE_SHARE)}); statistically tied: ${tied.join(', ') || '-'}. ` +
      'The run cannot tell them apart: measure more (a full run rather than --quick: more rounds and bursts) on an otherwise idle machine before choosing.',
  ];
}

export function recommendationLines(result: BenchResult): string[] {
  return result.recommendations.flatMap((r) => {
    const { memoryKiB, passes, lanes } = r.params;
    const head = r.fits
      ? `recommended (${r.backend}): m=${memoryKiB} KiB (${mib(memoryKiB)} MiB), t=${passes}, p=${lanes}`
      : `WARNING (${r.backend}): nothing measured fits; use OWASP's m=${memoryKiB} t=${passes} p=${lanes} (never weaker)`;
    return [head, ...r.reasoning.slice(1), ...stabilityLines(r)];
  });
}

export function formatTerminalReport(result: BenchResult): string {
  const c = candidateRows(result);
  const s = sustainedRows(result);
  return [
    environmentLine(result),
    `${result.candidates[0]?.single?.wallMs.n ?? 0} interleaved rounds; bursts of ${result.settings.concurrency}; ${result.durationSeconds.toFixed(1)} s`,
    '',
    textTable(c.header, c.rows),
    '',
    s.rows.length ? textTable(s.header, s.rows) : '(no sustained runs)',
    '',
    ...recommendationLines(result),
    ...result.notes.map((n) => `note: ${n}`),
  ].join('\n');
}

export function formatMarkdownReport(result: BenchResult, chartFile?: string): string {
  const c = candidateRows(result);
  const s = sustainedRows(result);
  const st = result.settings;
  return [
    '# passlane bench',
    '',
    `${environmentLine(result)}.`,
    '',
    `Run ${result.startedAt}, ${result.durationSeconds.toFixed(1)} s${result.truncated ? ' (cut short by the time bound)' : ''}. ` +
      `${st.warmups} warm-up(s), ${result.candidates[0]?.single?.wallMs.n ?? 0} interleaved rounds, ` +
      `bursts of ${st.concurrency} x ${st.burstRepeats}, sustained clients ${st.clients.join(', ')} ` +
      `(at most ${st.sustainedMaxSeconds} s or ${st.sustainedMaxHashes} hashes each). ` +
      `Bootstrap: ${st.bootstrapResamples} resamples, seed 0x${st.seed.toString(16)}.`,
    '',
    ...(chartFile ? [`![hash latency and throughput](${chartFile})`, ''] : []),
    '## Recommendation',
    '',
    `Budget: p95 <= ${st.budgetMs} ms with ${st.concurrency} logins in flight, memory <= ${st.memoryBudgetMiB} MiB.`,
    '',
    '```text',
    ...recommendationLines(result),
    '```',
    '',
    '## Single hashes and bursts',
    '',
    'Median and p95 of single hashes (interleaved rounds), the bootstrap 95% interval of the median, ' +
      'CPU time per hash (process-wide: native threadpool threads included), the p95 of a burst and its bootstrap 95% interval, the ' +
      'modelled memory at that many in flight (baseline RSS + hashes in flight x m) next to the RSS peak sampled ' +
      'during the bursts (an upper bound: allocators keep freed pages), and the CPU ceiling (usable cores / CPU-seconds per hash).',
    '',
    markdownTable(c.header, c.rows),
    '',
    '## Sustained load',
    '',
    s.rows.length ? markdownTable(s.header, s.rows) : '(none)',
    '',
    `Memory: baseline RSS ${num(result.memory.baselineRssMiB)} MiB, sampled peak ${num(result.memory.peakRssMiB)} MiB, maxRSS ${num(result.memory.maxRssMiB)} MiB.`,
    ...result.notes.map((n) => `\nNote: ${n}`),
    '',
  ].join('\n');
}
