// An authenticator app for tests that drive a shell (test/readme-quickstart.test.ts): prints the
// RFC 6238 code (SHA-1, 6 digits, 30 s) of a base32 secret, `steps` time steps from now.
//   node totp-app.mjs SECRET [steps]
import { Buffer } from 'node:buffer';
import { createHmac } from 'node:crypto';

const [secret = '', steps = '0'] = process.argv.slice(2);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
let bits = '';
for (const char of secret.replace(/=+$/, '').toUpperCase()) bits += ALPHABET.indexOf(char).toString(2).padStart(5, '0');
const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)));
const counter = Buffer.alloc(8);
counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + Number(steps)));
const mac = createHmac('sha1', key).update(counter).digest();
const offset = mac[mac.length - 1] & 0x0f;
process.stdout.write(String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0'));
