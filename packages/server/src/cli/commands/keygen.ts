import { parseArgs } from 'node:util';
import { MIN_FINGERPRINT_KEY_BYTES } from '../../accounts/settings.js';
import { publicJwks } from '../../features/tokens/jwks.js';
import { createKeyring, DEFAULT_SIGNING_ALGORITHM, generateSigningKey, isSigningAlgorithm, SIGNING_ALGORITHMS } from '../../features/tokens/keys.js';
import { CommandUsageError, parseCommandArgs, type CommandIo } from './command-io.js';

export const KEYGEN_USAGE = `usage: passlane keygen [--format env|dev-vars|ssm] [--alg ${SIGNING_ALGORITHMS.join('|')}] [--pepper-id ID] [--stage STAGE]
Makes new secrets and prints them on stdout, ready to paste or redirect: this command prints keys,
that is its job (nothing else in passlane ever prints one). Send it to a file, not to a shared
terminal, log or CI output:
  PASSLANE_JWT_PRIVATE_KEY   the JWT signing key, a private JWK (${DEFAULT_SIGNING_ALGORITHM} unless --alg: API Gateway's JWT authorizer takes RSA only)
  PASSLANE_JWT_PUBLIC_KEYS   its public half as a JWKS (not secret: what verifiers and the JWKS functions publish)
  PASSLANE_FINGERPRINT_KEY   ${MIN_FINGERPRINT_KEY_BYTES} random bytes, base64: the HMAC key of email fingerprints
  PASSLANE_PEPPER_KEYS       <id>:<32 random bytes, base64>, id the month (UTC) unless --pepper-id
  PASSLANE_MFA_KEYS          <id>:<32 random bytes, base64> (the same id): AES-256-GCM keys sealing TOTP secrets
Formats:
  env (default)   KEY='value' lines for .env (Deno, Bun, npm start; sh: set -a; . ./.env; set +a)
  dev-vars        the same lines for wrangler dev's .dev.vars (see .dev.vars.example for the rest)
  ssm             a sh script putting them into SSM Parameter Store under /passlane/STAGE/ (--stage, default dev),
                  the names serverless.yml reads: passlane keygen --format ssm > put.sh && sh put.sh && rm put.sh
Never reuse a pepper or fingerprint key from another deployment, and keep the old pepper key listed
until the rehash job has moved every record (infra/README.md, "Rotation").`;

type Format = 'env' | 'dev-vars' | 'ssm';

interface Secrets {
  privateJwk: string;
  publicJwks: string;
  fingerprintKey: string;
  pepperKeys: string;
  mfaKeys: string;
}

/** `passlane keygen`: see KEYGEN_USAGE. Exit 0, or 2 on bad arguments. */
export async function runKeygenCommand(args: string[], io: CommandIo): Promise<number> {
  const options = parseCommandArgs(io, 'keygen', KEYGEN_USAGE, () => parseKeygenArgs(args));
  if (options === undefined) return 2;
  const privateJwk = await generateSigningKey(options.alg);
  const secrets: Secrets = {
    privateJwk: JSON.stringify(privateJwk),
    publicJwks: JSON.stringify(publicJwks(await createKeyring(privateJwk))),
    fingerprintKey: randomBase64(MIN_FINGERPRINT_KEY_BYTES),
    pepperKeys: `${options.pepperId}:${randomBase64(32)}`,
    // Its own key, never the pepper's: each rotates on its own (features/mfa/README.md).
    mfaKeys: `${options.pepperId}:${randomBase64(32)}`,
  };
  io.stdout.write(options.format === 'ssm' ? ssmScript(secrets, options.stage) : envLines(secrets, options.format));
  return 0;
}

function parseKeygenArgs(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { format: { type: 'string' }, alg: { type: 'string' }, 'pepper-id': { type: 'string' }, stage: { type: 'string' } },
  });
  if (positionals.length > 0) throw new CommandUsageError('keygen takes no arguments');
  const format = values.format ?? 'env';
  if (format !== 'env' && format !== 'dev-vars' && format !== 'ssm') throw new CommandUsageError('--format must be env, dev-vars or ssm');
  const alg = values.alg ?? DEFAULT_SIGNING_ALGORITHM;
  if (!isSigningAlgorithm(alg)) throw new CommandUsageError(`--alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  // The pepper key id is stored in every sealed hash: the same rule as PASSLANE_PEPPER_KEYS's ids.
  const pepperId = values['pepper-id'] ?? new Date().toISOString().slice(0, 7);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(pepperId)) throw new CommandUsageError('--pepper-id must be 1 to 64 letters, digits, ".", "_" or "-"');
  const stage = values.stage ?? 'dev';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(stage)) throw new CommandUsageError('--stage must be 1 to 64 letters, digits, "_" or "-"');
  return { format: format as Format, alg, pepperId, stage };
}

function randomBase64(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64');
}

/** Single-quoted values: read alike by sh, dotenv and wrangler (none holds a quote: JSON and base64). */
function envLines(secrets: Secrets, format: Exclude<Format, 'ssm'>): string {
  const where = format === 'env' ? '.env' : ".dev.vars (wrangler dev; the Worker's secrets are `wrangler secret put` in production)";
  return [
    `# passlane keygen ${new Date().toISOString().slice(0, 10)}, for ${where}.`,
    '# Secrets: keep this file out of git (.gitignore has .env and .dev.vars) and out of logs.',
    `PASSLANE_JWT_PRIVATE_KEY='${secrets.privateJwk}'`,
    '# The public half, not secret: the JWKS and discovery routes publish it.',
    `PASSLANE_JWT_PUBLIC_KEYS='${secrets.publicJwks}'`,
    `PASSLANE_FINGERPRINT_KEY='${secrets.fingerprintKey}'`,
    `PASSLANE_PEPPER_KEYS='${secrets.pepperKeys}'`,
    `PASSLANE_MFA_KEYS='${secrets.mfaKeys}'`,
    '',
  ].join('\n');
}

/**
 * SecureString parameters read from files (file://), as infra/README.md does by hand: values never
 * stand on a command line (the process list) or in shell history. The script holds the secrets
 * itself until it is removed.
 */
function ssmScript(secrets: Secrets, stage: string): string {
  const parameters: Array<[name: string, file: string, value: string, type: 'SecureString' | 'String']> = [
    ['pepper-keys', 'pepper-keys.txt', secrets.pepperKeys, 'SecureString'],
    ['jwt-private-key', 'jwt-private-key.json', secrets.privateJwk, 'SecureString'],
    ['fingerprint-key', 'fingerprint-key.txt', secrets.fingerprintKey, 'SecureString'],
    ['mfa-keys', 'mfa-keys.txt', secrets.mfaKeys, 'SecureString'],
    ['jwt-public-keys', 'jwt-public-keys.json', secrets.publicJwks, 'String'],
  ];
  return [
    '#!/bin/sh',
    `# passlane keygen --format ssm --stage ${stage}: puts new secrets into SSM Parameter Store, where serverless.yml's`,
    '# *Parameter settings name them. This file holds the secrets: run it once, then remove it.',
    '# Add --key-id <CMK arn> to the put-parameter lines to use your own KMS key; an existing parameter needs --overwrite.',
    'set -eu',
    'umask 077',
    'dir=$(mktemp -d)',
    'trap \'rm -rf "$dir"\' EXIT',
    ...parameters.flatMap(([, file, value]) => [`cat > "$dir/${file}" <<'PASSLANE_KEYGEN_EOF'`, value, 'PASSLANE_KEYGEN_EOF']),
    ...parameters.map(([name, file, , type]) => `aws ssm put-parameter --name /passlane/${stage}/${name} --type ${type} --value "file://$dir/${file}"`),
    '',
  ].join('\n');
}
