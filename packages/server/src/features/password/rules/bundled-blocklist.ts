/**
 * The blocklist that ships with passlane, decoded on the first password check of a container
 * and kept for its life. Only what sets passwords uses this module: the Lambda functions
 * that never set one (login, rehash) are built from a platform without it, and tree shaking
 * leaves the data out of their bundles (test/deploy-package.test.ts). The import is static on
 * purpose: a dynamic one would give every bundle that merely contains this module a chunk of
 * the data, used or not.
 */
import { decodeBase64Padded } from 'passlane/encoding';
import { onceUntilFailure } from '../../../shared/once-until-failure.js';
import { BLOCKLIST_BASE64, BLOCKLIST_FORMAT as GENERATED_FORMAT } from './blocklist-data.generated.js';
import { BLOCKLIST_FORMAT } from './blocklist-format.js';
import { blocklistFromBytes, type Blocklist } from './blocklist.js';
import { BlocklistFormatError } from './errors.js';

let load: (() => Promise<Blocklist>) | undefined;

/**
 * The blocklist, decoded on the first call and kept for the container's life (a failed decode is
 * not kept). The once-wrapper is made at that first call, not at import: a bundle that holds
 * this module but never calls it (the login function's) then holds no code that reaches the data.
 */
export function loadBundledBlocklist(): Promise<Blocklist> {
  load ??= onceUntilFailure(decodeBundledBlocklist);
  return load();
}

async function decodeBundledBlocklist(): Promise<Blocklist> {
  // A module generated for another decoder would decode to nonsense: say so instead.
  if (GENERATED_FORMAT !== BLOCKLIST_FORMAT) throw new BlocklistFormatError(`the bundled blocklist is ${GENERATED_FORMAT}, this code reads ${BLOCKLIST_FORMAT}`);
  return blocklistFromBytes(decodeBase64Padded(BLOCKLIST_BASE64));
}
