import { RehashCursorInvalidError } from './errors.js';

/**
 * Where each segment of the parallel Scan stands: not started (`{}`), after a key (the
 * LastEvaluatedKey of its last page, or the pk of the last item handled), or done.
 */
export type SegmentPosition = { after?: string; done?: undefined } | { done: true; after?: undefined };

/**
 * A pass over the table is two Scans: fast digests first (what attackers crack first, wrapped
 * within minutes of starting whatever the table's size), then every other record.
 */
export type RehashPass = 'fast_digests' | 'the_rest';

export interface RehashCursor {
  pass: RehashPass;
  segments: SegmentPosition[];
}

export const MAX_SEGMENTS = 64;
const MAX_KEY_CHARS = 2048; // DynamoDB partition keys are at most 2048 bytes
const MAX_CURSOR_CHARS = 4 * MAX_SEGMENTS * MAX_KEY_CHARS;

export function freshCursor(totalSegments: number, pass: RehashPass = 'fast_digests'): RehashCursor {
  return { pass, segments: Array.from({ length: totalSegments }, () => ({})) };
}

/** Every segment of the current pass is done. */
export function isPassFinished(cursor: RehashCursor): boolean {
  return cursor.segments.every((segment) => segment.done === true);
}

export function isFinished(cursor: RehashCursor): boolean {
  return cursor.pass === 'the_rest' && isPassFinished(cursor);
}

/**
 * base64url of `{"v":1,"pass":"...","segments":[...]}`: one opaque token to pass back (Step Functions, CLI) or
 * store. Not a secret, and not secret-free either: a key is "user#" + an email, so cursors are
 * not for logs.
 */
export function encodeCursor(cursor: RehashCursor): string {
  return Buffer.from(JSON.stringify({ v: 1, pass: cursor.pass, segments: cursor.segments }), 'utf8').toString('base64url');
}

export function decodeCursor(text: string): RehashCursor {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(text)) {
    throw new RehashCursorInvalidError('cursor must be a non-empty base64url token');
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch (cause) {
    throw new RehashCursorInvalidError('cursor does not decode to JSON', { cause });
  }
  const { v, pass = 'the_rest', segments } = (value ?? {}) as { v?: unknown; pass?: unknown; segments?: unknown };
  if (v !== 1 || !Array.isArray(segments) || segments.length < 1 || segments.length > MAX_SEGMENTS) {
    throw new RehashCursorInvalidError(`cursor must be version 1 with 1 to ${MAX_SEGMENTS} segments`);
  }
  // Cursors from before the fast-digest pass have none: they were in a pass over everything.
  if (pass !== 'fast_digests' && pass !== 'the_rest') throw new RehashCursorInvalidError('cursor pass must be "fast_digests" or "the_rest"');
  return { pass, segments: segments.map(segmentPosition) };
}

function segmentPosition(value: unknown): SegmentPosition {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RehashCursorInvalidError('cursor segment must be an object');
  const keys = Object.keys(value);
  const { after, done } = value as { after?: unknown; done?: unknown };
  if (keys.length === 0) return {};
  if (keys.length === 1 && done === true) return { done: true };
  if (keys.length === 1 && typeof after === 'string' && after.length > 0 && after.length <= MAX_KEY_CHARS) return { after };
  throw new RehashCursorInvalidError('cursor segment must be {}, {"after": key} or {"done": true}');
}
