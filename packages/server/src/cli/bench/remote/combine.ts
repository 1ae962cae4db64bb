/**
 * Turns bench results from several Lambda memory sizes (and architectures) into one table:
 * latency, cost per million logins, and the recommended pair of memory size and argon2
 * parameters. Pure.
 *
 * On Lambda one instance serves one request at a time, so the billed duration of a login's hash
 * is one uncontended hash: the median of single hashes at that memory size.
 */
import { OWASP_FLOOR_CONFIGURATION, compareStrength } from '../recommend.js';
import type { Argon2Params, BenchBackend, BenchResult, CandidateResult } from '../types.js';
import { billedMs, costPerMillion, type LambdaArchitecture, type LambdaPrices } from './lambda-pricing.js';

export interface RemoteInvocation {
  functionName: string;
  architecture: LambdaArchitecture;
  memorySizeMB: number;
  result?: BenchResult;
  error?: string;
}

export interface RemoteRow {
  functionName: string;
  architecture: LambdaArchitecture;
  memorySizeMB: number;
  backend?: BenchBackend;
  /** Whether the recommended parameters fit the budget at this size. */
  fits: boolean;
  /** Whether the run's bootstrap makes the same pick nearly always (absent from results without it). */
  stable?: boolean;
  params?: Argon2Params;
  medianMs?: number;
  p95Ms?: number;
  billedMs?: number;
  costPerMillionUsd?: number;
  /** The OWASP configuration at this size, for a like-for-like curve across sizes. */
  reference?: { medianMs: number; p95Ms: number; costPerMillionUsd: number };
  error?: string;
}

export interface RemoteSummary {
  rows: RemoteRow[];
  best?: RemoteRow;
  reasoning: string[];
}

const sameParams = (c: Argon2Params, p: Argon2Params) => c.memoryKiB === p.memoryKiB && c.passes === p.passes && c.lanes === p.lanes;

function findCandidate(result: BenchResult, backend: BenchBackend, params: Argon2Params): CandidateResult | undefined {
  return result.candidates.find((c) => c.backend === backend && sameParams(c, params) && c.single);
}

export function combineRemoteResults(invocations: RemoteInvocation[], prices: LambdaPrices): RemoteSummary {
  const rows: RemoteRow[] = [];
  for (const inv of invocations) {
    const base = { functionName: inv.functionName, architecture: inv.architecture, memorySizeMB: inv.memorySizeMB };
    if (!inv.result) {
      rows.push({ ...base, fits: false, error: inv.error ?? 'no result' });
      continue;
    }
    for (const rec of inv.result.recommendations) {
      const chosen = findCandidate(inv.result, rec.backend, rec.params);
      const ref = findCandidate(inv.result, rec.backend, OWASP_FLOOR_CONFIGURATION);
      const cost = (c: CandidateResult) => costPerMillion(c.single!.wallMs.median, inv.memorySizeMB, inv.architecture, prices);
      rows.push({
        ...base,
        backend: rec.backend,
        fits: rec.fits,
        ...(rec.stability && { stable: rec.stability.stable }),
        params: rec.params,
        ...(chosen && {
          medianMs: chosen.single!.wallMs.median,
          p95Ms: rec.p95Ms ?? chosen.single!.wallMs.p95,
          billedMs: billedMs(chosen.single!.wallMs.median),
          costPerMillionUsd: cost(chosen),
        }),
        ...(ref && { reference: { medianMs: ref.single!.wallMs.median, p95Ms: ref.single!.wallMs.p95, costPerMillionUsd: cost(ref) } }),
      });
    }
  }

  // Security first (the strongest parameters that fit), then the cheapest size that runs them.
  const usable = rows.filter((r) => !r.error && r.params && r.costPerMillionUsd !== undefined);
  const ranked = [...usable].sort(
    (a, b) => Number(b.fits) - Number(a.fits) || -compareStrength(a.params!, b.params!) || a.costPerMillionUsd! - b.costPerMillionUsd!,
  );
  const best = ranked[0];
  const reasoning: string[] = [];
  for (const r of rows.filter((row) => row.error)) reasoning.push(`${r.functionName} at ${r.memorySizeMB} MB failed: ${r.error}`);
  if (!best) reasoning.push('no memory size produced a usable result');
  else if (!best.fits) reasoning.push('WARNING: no memory size fits the budget; the cheapest size running the OWASP floor configuration is shown');
  else {
    const p = best.params!;
    reasoning.push(
      `strongest parameters that fit: m=${p.memoryKiB} t=${p.passes} p=${p.lanes} (${best.backend}); ` +
        `cheapest size running them: ${best.memorySizeMB} MB ${best.architecture}, ` +
        `$${best.costPerMillionUsd!.toFixed(2)} per million logins (hash only)`,
    );
    if (best.stable === false) {
      reasoning.push(`WARNING: that pick is not stable at ${best.memorySizeMB} MB (the bootstrap of its bursts and speed picks others too): measure more before choosing`);
    }
  }
  return { rows, ...(best && { best }), reasoning };
}
