/**
 * bench/profile-summary.ts: how a V8 CPU profile's samples are grouped (no timing: a profile
 * made up here, whose every sample is known).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { groupOf, summarise, type CpuProfile } from '../bench/profile-summary.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** A source of the repository (or under its node_modules), as a profile names it. */
const file = (path: string) => pathToFileURL(join(ROOT, path)).href;
const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0, columnNumber: 0, scriptId: '0' });

/** root -> handler (ours) -> send (SDK) -> JSON.parse (builtin); handler -> sign (node:crypto); GC; idle. */
function profile(): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 6, 7] },
      { id: 2, callFrame: frame('login', file('packages/server/src/features/login/login.ts')), children: [3, 5] },
      { id: 3, callFrame: frame('send', file('node_modules/@smithy/core/dist-cjs/index.js')), children: [4] },
      { id: 4, callFrame: frame('parse') },
      { id: 5, callFrame: frame('signOneShot', 'node:internal/crypto/sig') },
      { id: 6, callFrame: frame('(garbage collector)') },
      { id: 7, callFrame: frame('(idle)') },
    ],
    startTime: 0,
    endTime: 1000,
    // One sample in the use case, two in the SDK's builtin, one in Node's crypto, one GC, three idle.
    samples: [2, 4, 4, 5, 6, 7, 7, 7],
    // The fourth gap is long (the thread descheduled): counting samples, it is one interval like the rest.
    timeDeltas: [0, 100, 100, 100, 900, 100, 100, 100],
  };
}

describe('profile-summary', () => {
  it('charges builtins to their caller, Node to the caller outside it, and counts samples, not gaps', () => {
    const summary = summarise(profile());
    const ms = Object.fromEntries([...summary.groups].map(([group, value]) => [group, Math.round(value * 1000) / 1000]));
    expect(ms).toEqual({
      'server: features/login': 0.1,
      'AWS SDK and its HTTP (@aws-sdk, @smithy)': 0.2,
      'Node internals (node:*), for server: features/login': 0.1,
      GC: 0.1,
    });
    expect(summary.idleMs).toBeCloseTo(0.3, 6);
  });

  it('charges the gaps instead with `wall`', () => {
    const summary = summarise(profile(), { wall: true });
    // The sample before the long gap (Node's crypto) stands for it.
    expect(summary.groups.get('Node internals (node:*), for server: features/login')).toBeCloseTo(0.9, 6);
  });

  it('names the groups the measurements doc reads', () => {
    expect(groupOf('node_modules/jose/dist/index.js', 'f')).toBe('jose');
    expect(groupOf('packages/passlane/src/pepper.ts', 'f')).toBe('hashing core (packages/passlane)');
    expect(groupOf('packages/server/src/runtimes/lambda/direct-requests.ts', 'f')).toBe('server: runtimes/lambda (DynamoDB short path)');
    expect(groupOf('packages/server/src/storage/session-store.ts', 'f')).toBe('server: storage');
    expect(groupOf('', '(garbage collector)')).toBe('GC');
  });
});
