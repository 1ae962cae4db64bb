import { HashParametersOutOfBoundsError, MalformedHashError } from '../errors.js';

/**
 * Reads a decimal cost parameter: digits only, no sign, no leading zeros, then bounds it.
 * Checking the text before Number() means "1e9", "-1", "0x10" or " 5" never get through, and a
 * 30-digit value is out of bounds without ever being rounded into range.
 */
export function parseBoundedInteger(text: string | undefined, name: string, min: number, max: number): number {
  if (text === undefined || !/^(0|[1-9][0-9]*)$/.test(text)) {
    throw new MalformedHashError(`${name} is not a decimal integer`);
  }
  if (text.length > 15) throw new HashParametersOutOfBoundsError(`${name} is outside ${min}..${max}`);
  const value = Number(text);
  if (value < min || value > max) {
    throw new HashParametersOutOfBoundsError(`${name}=${value} is outside ${min}..${max}`);
  }
  return value;
}
