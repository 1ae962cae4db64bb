/**
 * Debian's Chromium, headless, for the tests that drive real pages through playwright-core (no
 * browser download). CI installs it (.ci/run): there a missing browser fails the run instead of
 * skipping the tests that need it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
// Without these, Chromium on a machine with no network stalls on its background services.
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const chromiumMissing = !existsSync(CHROMIUM);
if (chromiumMissing && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);

/** A browser on a fresh profile directory, added to `tempDirs` for the caller to remove after closing it. */
export async function launchHeadlessChromium(tempDirs: string[]): Promise<BrowserContext> {
  const profile = await mkdtemp(join(tmpdir(), 'passlane-chromium-'));
  tempDirs.push(profile);
  return chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}
