/**
 * The blocklist that ships with passlane, decoded on the first password check of a container
 * and kept for its life. Only what sets passwords reaches this module: the Lambda functions
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

export const loadBundledBlocklist: () => Promise<Blocklist> = /* @__PURE__ */ onceUntilFailure(async () => {
  // A module generated for another decoder would decode to nonsense: say so instead.
  if (GENERATED_FORMAT !== BLOCKLIST_FORMAT) throw new BlocklistFormatError(`the bundled blocklist is ${GENERATED_FORMAT}, this code reads ${BLOCKLIST_FORMAT}`);
  return blocklistFromBytes(decodeBase64Padded(BLOCKLIST_BASE64));
});
