/** Small checks the stores share. */

export function isConditionalCheckFailed(error: unknown): boolean {
  // By name rather than instanceof: robust to duplicate SDK copies in a bundle.
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

export function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer`);
  }
}
