import { PasslaneError, type PasswordHasher } from 'passlane/common';

/** The smallest valid argon2id record: sealing it costs one AES-GCM call, no argon2. */
const PROBE = `$argon2id$v=19$m=8,t=1,p=1$${'A'.repeat(11)}$${'A'.repeat(22)}`;

/**
 * The id of the key the hasher seals new records with, or undefined without a pepper. The hasher
 * does not expose it, so it is read off a sealed probe: this way the job can never disagree with
 * the hasher about which key is current.
 */
export async function currentPepperKeyId(hasher: Pick<PasswordHasher, 'rotatePepper' | 'describe'>): Promise<string | undefined> {
  try {
    return hasher.describe(await hasher.rotatePepper(PROBE)).pepperKeyId;
  } catch (error) {
    if (error instanceof PasslaneError && error.code === 'ERR_OPTIONS_INVALID') return undefined;
    throw error;
  }
}
