/** Whole seconds since the epoch: what DynamoDB's TTL, JWT times and the stored expiries count in. */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
