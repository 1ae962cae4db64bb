/**
 * Every relative link in every Markdown file of the repository resolves: to a file or folder
 * that git tracks (or that this branch adds), and, with a `#fragment`, to a heading of that file
 * as GitHub names its anchors. Links to the web are not fetched (no network in tests).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const markdownFiles = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((path) => path !== '' && !path.includes('node_modules/') && existsSync(join(ROOT, path)));

/** `[text](target)` and `[text](target "title")` outside code spans and fenced blocks; images too. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
}

/** GitHub's anchor of a heading: lower-case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

describe('links between the repository\'s Markdown files', () => {
  it('finds the Markdown files', () => {
    expect(markdownFiles).toContain('README.md');
  });

  it('keeps the root README to a first hour: 300 lines at most (the rest is linked)', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it.each(markdownFiles)('%s: every relative link resolves', (file) => {
    const broken: string[] = [];
    for (const link of linksOf(readFileSync(join(ROOT, file), 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('//')) continue;
      const [path = '', fragment] = link.split('#');
      const target = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
      if (relative(ROOT, join(ROOT, target)).startsWith('..')) {
        broken.push(`${link}: outside the repository`);
        continue;
      }
      if (!existsSync(join(ROOT, target))) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (fragment !== undefined && fragment !== '' && target.endsWith('.md') && !anchorsOf(readFileSync(join(ROOT, target), 'utf8')).has(fragment)) {
        broken.push(`${link}: no heading #${fragment} in ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
