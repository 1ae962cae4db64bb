/**
 * AWS Lambda on-demand prices, US East (N. Virginia), first volume tier.
 * Source: https://aws.amazon.com/lambda/pricing/ ; these rates have been listed unchanged since
 * arm64 launched (September 2021) and were cross-checked in 2025. Other regions and the volume
 * tiers differ: pass --price-x86-gbs, --price-arm64-gbs, --price-requests to override.
 */
export const LAMBDA_PRICES_AS_OF = '2025 (rates unchanged since 2021-09)';
export const LAMBDA_PRICES_SOURCE = 'https://aws.amazon.com/lambda/pricing/ (us-east-1, first tier)';

export type LambdaArchitecture = 'x86_64' | 'arm64';

export interface LambdaPrices {
  /** USD per GB-second (GB = configured MB / 1024) */
  perGbSecond: Record<LambdaArchitecture, number>;
  /** USD per million requests */
  perMillionRequests: number;
  asOf: string;
  source: string;
}

export const DEFAULT_LAMBDA_PRICES: Readonly<LambdaPrices> = Object.freeze({
  perGbSecond: Object.freeze({ x86_64: 0.0000166667, arm64: 0.0000133334 }),
  perMillionRequests: 0.2,
  asOf: LAMBDA_PRICES_AS_OF,
  source: LAMBDA_PRICES_SOURCE,
});

/** Lambda bills duration in whole milliseconds, rounded up. */
export const billedMs = (durationMs: number): number => Math.max(1, Math.ceil(durationMs));

/**
 * USD per million invocations of `durationMs` at `memorySizeMB`: duration (GB-seconds) plus
 * requests. Free tier ignored.
 */
export function costPerMillion(durationMs: number, memorySizeMB: number, architecture: LambdaArchitecture, prices: LambdaPrices = DEFAULT_LAMBDA_PRICES): number {
  const gbSeconds = (billedMs(durationMs) / 1000) * (memorySizeMB / 1024);
  return 1_000_000 * gbSeconds * prices.perGbSecond[architecture] + prices.perMillionRequests;
}
