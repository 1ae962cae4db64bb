// `passlane` as a consumer runs it, on whichever Node runs this file: test/core-oldest-node.test.ts
// copies it into a fresh project where the packed package is installed and runs it with the oldest
// Node the package's engines promise. Every entry point loads; both backends hash, verify and pepper;
// one stored hash of each format verifies (stdin: [{ id, stored, password, wrongPassword }]).
// Prints one JSON line of what each step gave; the test holds it to what the formats expect.
import { createPasswordHasher } from 'passlane';
import { PasslaneError } from 'passlane/common';
import { encodeBase64Padded } from 'passlane/encoding';
import { detectRuntime } from 'passlane/runtime';

const PASSWORD = 'correct horse battery staple';
const pepper = { currentKeyId: 'k1', keys: { k1: encodeBase64Padded(new Uint8Array(32).fill(7)) } };

let input = '';
for await (const chunk of process.stdin) input += chunk;
const fixtures = JSON.parse(input);

const result = { node: process.version, runtime: detectRuntime(), backends: {}, formats: {} };
const stored = {};
for (const backend of ['native', 'wasm']) {
  const hasher = createPasswordHasher({ backend, pepper });
  stored[backend] = await hasher.hash(PASSWORD);
  const right = await hasher.verify(stored[backend], PASSWORD);
  const wrong = await hasher.verify(stored[backend], `${PASSWORD}!`);
  result.backends[backend] = { name: await hasher.backendName(), peppered: stored[backend].startsWith('$pepper$'), ok: right.ok, needsRehash: right.needsRehash, wrong: wrong.ok };
}
// What one backend wrote, the other reads.
const wasm = createPasswordHasher({ backend: 'wasm', pepper });
result.crossBackend = (await wasm.verify(stored.native, PASSWORD)).ok;

const hasher = createPasswordHasher({ backend: 'native', pepper: false });
for (const fixture of fixtures) {
  const right = await hasher.verify(fixture.stored, fixture.password);
  const wrong = await hasher.verify(fixture.stored, fixture.wrongPassword);
  result.formats[fixture.id] = { scheme: right.scheme, ok: right.ok, wrong: wrong.ok };
}
try {
  await hasher.verify('$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7', PASSWORD);
  result.refused = 'no error';
} catch (error) {
  result.refused = error instanceof PasslaneError ? error.code : String(error);
}
console.log(JSON.stringify(result));
