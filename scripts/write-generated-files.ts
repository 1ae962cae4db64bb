/**
 * The generators' last step (generate:infra, generate:openapi): write each generated file that
 * differs from what is on disk, or with `--check` write nothing and name each stale one (CI's
 * drift check). Returns the exit code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writeGeneratedFiles(root: string, files: Record<string, string>, options: { check: boolean; source: string; command: string }): number {
  let stale = 0;
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    if (readIfPresent(file) === content) continue;
    if (options.check) {
      console.error(`${path} differs from what ${options.source} generate: run ${options.command}`);
      stale++;
    } else {
      writeFileSync(file, content);
      console.log(`wrote ${path}`);
    }
  }
  return stale === 0 ? 0 : 1;
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
