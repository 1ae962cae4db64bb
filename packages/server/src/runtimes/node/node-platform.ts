import { nodeBulkPlatform, nodePlatformWithoutBlocklist } from './node-platform-base.js';
import { loadBundledBlocklist } from '../../features/password/rules/bundled-blocklist.js';
import type { Platform } from '../../wiring/platform.js';

export { nodeBulkPlatform, nodePlatformWithoutBlocklist };

/** Every Node host and function that sets passwords: node-platform-base.ts's parts with the bundled blocklist. */
export const nodePlatform: Platform = { ...nodePlatformWithoutBlocklist, passwordBlocklist: loadBundledBlocklist };
