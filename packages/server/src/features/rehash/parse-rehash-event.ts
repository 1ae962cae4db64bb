import { RehashInputInvalidError } from './errors.js';
import { MAX_SEGMENTS } from './job-cursor.js';

/** What a caller may ask of one run; other fields (EventBridge's own) are ignored. */
export interface RehashEvent {
  cursor?: string;
  dryRun?: boolean;
  segments?: number;
}

export function parseRehashEvent(event: unknown): RehashEvent {
  if (event === undefined || event === null) return {};
  if (typeof event !== 'object' || Array.isArray(event)) throw new RehashInputInvalidError('the event must be a JSON object');
  const { cursor, dryRun, segments } = event as Record<string, unknown>;
  const input: RehashEvent = {};
  if (cursor !== undefined && cursor !== null) {
    if (typeof cursor !== 'string') throw new RehashInputInvalidError('cursor must be a string');
    input.cursor = cursor;
  }
  if (dryRun !== undefined) {
    if (typeof dryRun !== 'boolean') throw new RehashInputInvalidError('dryRun must be true or false');
    input.dryRun = dryRun;
  }
  if (segments !== undefined) {
    if (typeof segments !== 'number' || !Number.isInteger(segments) || segments < 1 || segments > MAX_SEGMENTS) {
      throw new RehashInputInvalidError(`segments must be an integer from 1 to ${MAX_SEGMENTS}`);
    }
    input.segments = segments;
  }
  return input;
}
