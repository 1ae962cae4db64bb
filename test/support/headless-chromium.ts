/**
 * Debian's Chromium, headless, for the tests that drive real pages through playwright-core (no
 * browser download). CI installs it (.ci/run): there a missing browser fails the run instead of
 * skipping the tests that need it.
 */
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
// Without these, Chromium on a machine with no network stalls on its background services.
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const chromiumMissing = !existsSync(CHROMIUM);
if (chromiumMissing && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);

/** A browser on a profile directory of the caller's (which removes it). */
export function launchHeadlessChromium(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}
