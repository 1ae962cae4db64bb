/** The terminal table and Markdown for `passlane bench --remote`. Pure. */
import { markdownTable, ms, textTable } from '../format.js';
import type { RemoteBenchResult } from './run-remote.js';

function rows(result: RemoteBenchResult): { header: string[]; rows: string[][] } {
  const header = ['function', 'arch', 'MB', 'backend', 'recommended', 'fits', 'stable', 'median ms', 'p95 ms', '$/M logins', 'OWASP median ms', 'OWASP $/M'];
  return {
    header,
    rows: result.rows.map((r) => [
      r.functionName,
      r.architecture,
      String(r.memorySizeMB),
      r.backend ?? '-',
      r.error ? `error: ${r.error.slice(0, 60)}` : r.params ? `m=${r.params.memoryKiB} t=${r.params.passes} p=${r.params.lanes}` : '-',
      r.error ? '-' : r.fits ? 'yes' : 'no',
      r.stable === undefined ? '-' : r.stable ? 'yes' : 'no',
      ms(r.medianMs),
      ms(r.p95Ms),
      r.costPerMillionUsd === undefined ? '-' : r.costPerMillionUsd.toFixed(3),
      ms(r.reference?.medianMs),
      r.reference ? r.reference.costPerMillionUsd.toFixed(3) : '-',
    ]),
  };
}

function footer(result: RemoteBenchResult): string[] {
  const p = result.prices;
  return [
    ...result.reasoning,
    ...result.restoreFailures.map((f) => `RESTORE FAILED: ${f}`),
    `prices: x86_64 $${p.perGbSecond.x86_64}/GB-s, arm64 $${p.perGbSecond.arm64}/GB-s, $${p.perMillionRequests}/M requests (${p.source}, ${p.asOf}); hash time only, free tier ignored`,
  ];
}

export function formatRemoteTerminal(result: RemoteBenchResult): string {
  const t = rows(result);
  return [textTable(t.header, t.rows), '', ...footer(result)].join('\n');
}

export function formatRemoteMarkdown(result: RemoteBenchResult): string {
  const t = rows(result);
  return ['# passlane bench --remote', '', `Run ${result.startedAt}.`, '', markdownTable(t.header, t.rows), '', ...footer(result).map((l) => `- ${l}`), ''].join('\n');
}
