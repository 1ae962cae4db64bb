/**
 * The blocklist's compact form: a Golomb-Rice coded set (a sorted hash list, delta-encoded).
 * Each listed password, folded (normalise.ts), is hashed to a key in [0, range) with
 * range = n * 2^riceBits; the sorted keys' gaps are written as Rice codes (the quotient in unary,
 * then riceBits of remainder). A password not on the list matches one of the n keys with
 * probability about n / range = 2^-riceBits: the false-positive rate. The set costs about
 * riceBits + 1.6 bits per entry, near the information-theoretic floor for that rate. The same
 * key function and coder run in the build script (scripts/build-blocklist.ts) and at run time,
 * so the two cannot disagree.
 *
 * The keys come in blocks of `blockSize` (1024) with an index of where each block starts and the
 * key before it: a lookup binary-searches the index and decodes one block, so opening the list
 * costs a header read, not a decode of all 100,000 keys.
 *
 * Layout (little-endian): "PLB2", riceBits (u8), 3 zero bytes, count (u32), range (u32 high, u32
 * low), blockSize (u32), blocks (u32); per block: its first code's bit position (u32) and the key
 * before it (u32 high, u32 low; 0 for the first block, whose first gap counts from 0); then the
 * bit stream, most significant bit first, zero-padded to a whole byte.
 */
import { utf8 } from 'passlane/encoding';
import { BlocklistFormatError } from './errors.js';

/** The generated module's marker: bundles are searched for it (bench:cold, the packaging test). */
export const BLOCKLIST_FORMAT = 'passlane-blocklist/2';

const MAGIC = [0x50, 0x4c, 0x42, 0x32]; // "PLB2"
const HEADER_BYTES = 28;
const INDEX_ENTRY_BYTES = 12;
const TWO_32 = 2 ** 32;
export const DEFAULT_BLOCK_SIZE = 1024;

/** The asset, opened: the header and the block index read, the stream left coded. */
export interface CodedBlocklist {
  bytes: Uint8Array;
  count: number;
  range: number;
  riceBits: number;
  blockSize: number;
  /** Per block: bit position of its first code, and the key before it. */
  blockStarts: Uint32Array;
  blockBases: Float64Array;
}

/**
 * The key of a folded password: the first 48 bits of its SHA-256, reduced mod `range`. SHA-256
 * because every host has it (Web Crypto), not for secrecy: the list is public. 48 bits against a
 * range below 2^37 leave a modulo bias under 2^-11 of a key's share, far below the coding's own slack.
 */
export async function blocklistKey(folded: string, range: number): Promise<number> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(folded)));
  let high48 = 0;
  for (let i = 0; i < 6; i++) high48 = high48 * 256 + (digest[i] ?? 0);
  return high48 % range;
}

/** The range for `entries` listed passwords at a false-positive rate of 2^-riceBits. */
export function blocklistRange(entries: number, riceBits: number): number {
  const range = entries * 2 ** riceBits;
  if (!Number.isSafeInteger(range) || range >= 2 ** 53) throw new RangeError('blocklist range must stay below 2^53');
  return range;
}

/** Encodes sorted keys (duplicates dropped) as the asset's bytes. */
export function encodeBlocklist(sortedKeys: readonly number[], range: number, riceBits: number, blockSize = DEFAULT_BLOCK_SIZE): Uint8Array {
  if (!Number.isInteger(riceBits) || riceBits < 1 || riceBits > 30) throw new RangeError('riceBits must be from 1 to 30');
  if (!Number.isInteger(blockSize) || blockSize < 1) throw new RangeError('blockSize must be a positive integer');
  const keys = [...new Set(sortedKeys)];
  const blocks = Math.ceil(keys.length / blockSize);
  const streamStart = (HEADER_BYTES + blocks * INDEX_ENTRY_BYTES) * 8;
  const divisor = 2 ** riceBits;
  const stream: number[] = [];
  let bitCount = 0;
  let current = 0;
  const push = (bit: number) => {
    current = (current << 1) | bit;
    if (++bitCount % 8 === 0) {
      stream.push(current);
      current = 0;
    }
  };
  const starts: number[] = [];
  const bases: number[] = [];
  let previous = 0;
  keys.forEach((key, i) => {
    if (!Number.isInteger(key) || key < previous || key >= range) throw new RangeError('keys must be sorted integers within the range');
    if (i % blockSize === 0) {
      starts.push(streamStart + bitCount);
      bases.push(previous);
    }
    const gap = key - previous;
    previous = key;
    for (let q = Math.floor(gap / divisor); q > 0; q--) push(1);
    push(0);
    const remainder = gap % divisor;
    for (let bit = riceBits - 1; bit >= 0; bit--) push(Math.floor(remainder / 2 ** bit) % 2);
  });
  while (bitCount % 8 !== 0) push(0);
  const out = new Uint8Array(streamStart / 8 + stream.length);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  out[4] = riceBits;
  view.setUint32(8, keys.length, true);
  view.setUint32(12, Math.floor(range / TWO_32), true);
  view.setUint32(16, range % TWO_32, true);
  view.setUint32(20, blockSize, true);
  view.setUint32(24, blocks, true);
  for (let b = 0; b < blocks; b++) {
    const at = HEADER_BYTES + b * INDEX_ENTRY_BYTES;
    view.setUint32(at, starts[b]!, true);
    view.setUint32(at + 4, Math.floor(bases[b]! / TWO_32), true);
    view.setUint32(at + 8, bases[b]! % TWO_32, true);
  }
  out.set(stream, streamStart / 8);
  return out;
}

/** Reads the header and the index, checking that they agree with each other and the stream's length. */
export function openBlocklist(bytes: Uint8Array): CodedBlocklist {
  if (bytes.length < HEADER_BYTES || MAGIC.some((byte, i) => bytes[i] !== byte)) throw new BlocklistFormatError('not a passlane blocklist (format 2)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const riceBits = bytes[4]!;
  const count = view.getUint32(8, true);
  const range = view.getUint32(12, true) * TWO_32 + view.getUint32(16, true);
  const blockSize = view.getUint32(20, true);
  const blocks = view.getUint32(24, true);
  const streamStart = (HEADER_BYTES + blocks * INDEX_ENTRY_BYTES) * 8;
  if (riceBits < 1 || riceBits > 30 || range < count || blockSize < 1 || blocks !== Math.ceil(count / blockSize) || streamStart > bytes.length * 8) {
    throw new BlocklistFormatError('blocklist header is inconsistent');
  }
  // Each code is at least riceBits + 1 bits: a shorter stream cannot hold `count` keys.
  if (bytes.length * 8 - streamStart < count * (riceBits + 1)) throw new BlocklistFormatError('blocklist stream ends early');
  const blockStarts = new Uint32Array(blocks);
  const blockBases = new Float64Array(blocks);
  for (let b = 0; b < blocks; b++) {
    const at = HEADER_BYTES + b * INDEX_ENTRY_BYTES;
    blockStarts[b] = view.getUint32(at, true);
    blockBases[b] = view.getUint32(at + 4, true) * TWO_32 + view.getUint32(at + 8, true);
    const ordered = b === 0 ? blockStarts[b] === streamStart && blockBases[b] === 0 : blockStarts[b]! > blockStarts[b - 1]! && blockBases[b]! > blockBases[b - 1]!;
    if (!ordered || blockStarts[b]! >= bytes.length * 8 || blockBases[b]! >= range) throw new BlocklistFormatError('blocklist index is inconsistent');
  }
  return { bytes, count, range, riceBits, blockSize, blockStarts, blockBases };
}

/**
 * Decodes block `b`'s keys, calling `visit` with each in order until it returns true; returns
 * the bit position after the last code read. Throws BlocklistFormatError where the stream
 * disagrees with the index (past its end, out of order).
 */
function walkBlock(list: CodedBlocklist, b: number, visit: (key: number) => boolean): number {
  const { bytes, riceBits, range } = list;
  const end = bytes.length * 8;
  const divisor = 2 ** riceBits;
  const byteAt = (index: number) => bytes[index] ?? 0;
  const entries = Math.min(list.blockSize, list.count - b * list.blockSize);
  let position = list.blockStarts[b]!;
  let previous = list.blockBases[b]!;
  for (let i = 0; i < entries; i++) {
    // Unary quotient: ones up to a zero, counted a byte at a time.
    let quotient = 0;
    for (;;) {
      if (position >= end) throw new BlocklistFormatError('blocklist stream ends early');
      const offset = position & 7;
      const available = 8 - offset;
      // The byte's unread bits at the top of a 32-bit word; its leading ones are its complement's leading zeros.
      const ones = Math.min(Math.clz32(~((byteAt(position >>> 3) << (24 + offset)) | 0)), available);
      quotient += ones;
      position += ones;
      if (ones < available) {
        position++; // the terminating zero
        break;
      }
    }
    if (position + riceBits > end) throw new BlocklistFormatError('blocklist stream ends early');
    // riceBits (at most 30) from a 40-bit window starting at the byte holding `position`.
    const index = position >>> 3;
    const offset = position & 7;
    const word = ((byteAt(index) << 24) | (byteAt(index + 1) << 16) | (byteAt(index + 2) << 8) | byteAt(index + 3)) >>> 0;
    const remainder = (((word << offset) | (byteAt(index + 4) >>> (8 - offset))) >>> (32 - riceBits)) >>> 0;
    position += riceBits;
    const key = previous + quotient * divisor + remainder;
    const first = b === 0 && i === 0;
    if (key >= range || (!first && key <= previous)) throw new BlocklistFormatError('blocklist keys are out of order or out of range');
    if (visit(key)) return position;
    previous = key;
  }
  const next = list.blockStarts[b + 1];
  if (next !== undefined && next !== position) throw new BlocklistFormatError('blocklist index disagrees with its stream');
  return position;
}

/** Whether `key` is in the set: the block that would hold it, decoded up to it. */
export function hasKey(list: CodedBlocklist, key: number): boolean {
  // The last block whose base (the key before it) is below `key`; block 0 holds everything up to its last key.
  let low = 0;
  let high = list.blockBases.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if (list.blockBases[mid]! < key) low = mid;
    else high = mid - 1;
  }
  if (list.blockBases.length === 0) return false;
  let found = false;
  walkBlock(list, low, (candidate) => {
    found = candidate === key;
    return candidate >= key;
  });
  return found;
}

/** Every key, in order, checking the whole stream: scripts/build-blocklist.ts checks what it writes with it (and tests). */
export function decodeBlocklist(bytes: Uint8Array): { keys: Float64Array; range: number; riceBits: number } {
  const list = openBlocklist(bytes);
  const keys = new Float64Array(list.count);
  let n = 0;
  let end = list.blockStarts[0] ?? bytes.length * 8;
  for (let b = 0; b < list.blockStarts.length; b++) {
    end = walkBlock(list, b, (key) => {
      keys[n++] = key;
      return false;
    });
  }
  // After the last code, padding only.
  if (bytes.length * 8 - end >= 8) throw new BlocklistFormatError('blocklist has trailing data');
  return { keys, range: list.range, riceBits: list.riceBits };
}
