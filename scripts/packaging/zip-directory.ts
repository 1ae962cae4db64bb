/**
 * A deterministic zip: sorted entries, one fixed timestamp, mode 0644. Unchanged code gives a
 * byte-identical zip, so a deploy updates only the functions whose code changed; and no entry
 * keeps a restrictive mode from the build machine (Lambda cannot read a 0600 file).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync, type Zippable } from 'fflate';

const FIXED_TIME = new Date(2000, 0, 1);
const REGULAR_FILE_0644 = (0o100644 << 16) >>> 0;
const UNIX = 3;

export function zipFiles(dir: string, files: string[], zipPath: string): number {
  const entries: Zippable = {};
  for (const file of [...files].sort()) {
    entries[file] = [readFileSync(join(dir, file)), { mtime: FIXED_TIME, os: UNIX, attrs: REGULAR_FILE_0644, level: 9 }];
  }
  const zip = zipSync(entries);
  writeFileSync(zipPath, zip);
  return zip.byteLength;
}
