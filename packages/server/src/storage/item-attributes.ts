import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { StorageRecordInvalidError } from './errors.js';

/**
 * A stored item's attributes read as a store wrote them. Anything else is a record this code
 * never wrote, refused by name (`<record>.<attribute>`) rather than read as a wrong value.
 */

/** A string attribute. */
export function textAttribute(item: Record<string, AttributeValue>, name: string, record: string): string {
  const value = item[name]?.S;
  if (value === undefined) throw new StorageRecordInvalidError(`${record}.${name}`);
  return value;
}

/** A number attribute holding a whole number, 0 or more (counts, epoch seconds). */
export function wholeNumberAttribute(item: Record<string, AttributeValue>, name: string, record: string): number {
  const value = Number(item[name]?.N);
  if (!Number.isSafeInteger(value) || value < 0) throw new StorageRecordInvalidError(`${record}.${name}`);
  return value;
}

/** A count: a whole number as above, or 0 when the attribute is absent (a counter never written). */
export function countAttribute(item: Record<string, AttributeValue>, name: string, record: string): number {
  return item[name] === undefined ? 0 : wholeNumberAttribute(item, name, record);
}
