/**
 * The README's "Try the API", walked literally on a fresh `npm start` (startLocalServer, its
 * readable console captured): each block marked `<!-- quickstart: name -->` runs, in order, in one
 * bash session, so its variable captures carry over as in a reader's terminal; only the server's
 * address is put in place of `http://localhost:3000`. The two links the README says to open are
 * read from the console, where the README says they are printed, and opened in Debian's headless
 * Chromium, whose pages confirm the address and choose the new password the README names. After
 * each step the server's request lines must be exactly the ones expected (so a path, a method or
 * a field the README gets wrong shows as the wrong status), no answer may be an error, and the
 * console never holds the address or a password. The two-factor blocks' `CODE=123456` lines are
 * what the reader's authenticator app shows: the walk puts there the enrolled secret's code
 * (test/support/totp-app.mjs), the next time step's for each later line, as a reader waits for
 * the app's next code (a code works once). The last case walks a copy of the README with
 * one path changed, and the walk must fail.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchHeadlessChromium } from './support/headless-chromium.js';
import { startLocalServer, type LocalServer } from '../packages/server/src/runtimes/node/local-server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** What the README's blocks call the server; the walk puts the fresh server's address there. */
const README_API = 'http://localhost:3000';
const TOTP_APP = fileURLToPath(new URL('./support/totp-app.mjs', import.meta.url));

/** The README's `CODE=<six digits>` lines, made the app's code of `$ENROL`'s secret, `step` steps from now. */
function withTheAppsCodes(script: string, nextStep: () => number): string {
  return script.replace(/^CODE=\d{6}\b/gm, () => `CODE=$(node '${TOTP_APP}' "$(echo "$ENROL" | field secret)" ${nextStep()})`);
}

interface Block {
  name: string;
  script: string;
}

/** The marked shell blocks, in the README's order. */
function quickstartBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/<!-- quickstart: ([\w-]+) -->\n```sh\n([\s\S]*?)\n```/g)].map(([, name, script]) => ({ name: name!, script: script! }));
}

/** One bash session, as a reader's terminal: each block sourced from a file (stdin stays the walk's), its output returned. */
class Shell {
  private readonly child: ChildProcessWithoutNullStreams;
  private output = '';

  constructor(private readonly dir: string) {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, LANG: 'C.UTF-8' } });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
  }

  async run(script: string): Promise<string> {
    const file = join(this.dir, `block-${randomUUID()}.sh`);
    await writeFile(file, `${script}\n`);
    const done = `__block_done_${randomUUID()}__`;
    const from = this.output.length;
    this.child.stdin.write(`source ${file} < /dev/null\nprintf '\\n${done}\\n'\n`);
    const started = Date.now();
    while (!this.output.includes(done, from)) {
      if (this.child.exitCode !== null) throw new Error(`bash exited: ${this.output.slice(from)}`);
      if (Date.now() - started > 15_000) throw new Error(`the block did not finish: ${this.output.slice(from)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.output.slice(from, this.output.indexOf(done, from)).trim();
  }

  /** A variable's value as the session holds it. */
  async variable(name: string): Promise<string> {
    return this.run(`printf '%s' "$${name}"`);
  }

  close(): void {
    this.child.kill();
  }
}

interface Walk {
  server: LocalServer;
  console: string[];
  shell: Shell;
}

/** The server's request lines (`12:04:05 POST /login 200 38 ms`) from `from` on, as `POST /login 200`. */
function requestsSince(walk: Walk, from: number): string[] {
  return walk.console.slice(from).flatMap((line) => {
    const match = /^\d\d:\d\d:\d\d (GET|POST|DELETE|OPTIONS|PUT|HEAD) (\S+) (\d{3}) [\d.]+ ms$/.exec(line);
    return match ? [`${match[1]} ${match[2]} ${match[3]}`] : [];
  });
}

/** The newest link of this kind on the console, with the outbox file the line names. */
function mailedLink(walk: Walk, kind: 'email verification' | 'password reset'): { file: string; link: string } {
  const lines = walk.console.flatMap((line) => {
    const match = new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${kind} mail written to (\\S+\\.eml); link: (\\S+)$`).exec(line);
    return match ? [{ file: match[1]!, link: match[2]! }] : [];
  });
  if (lines.length === 0) throw new Error(`no ${kind} mail on the console:\n${walk.console.join('\n')}`);
  return lines.at(-1)!;
}

/**
 * Walks `markdown`'s quickstart on `walk`'s server: each block, then what the README says to do
 * in a browser (`browser`, given the step's name). Throws at the first step whose requests are
 * not the expected ones, or whose output is an error answer.
 */
async function walkQuickstart(markdown: string, walk: Walk, browser?: (step: string) => Promise<void>): Promise<void> {
  const blocks = quickstartBlocks(markdown);
  const steps: Array<{ block: string; requests: string[]; browser?: string[] }> = [
    { block: 'register-login', requests: ['POST /register 201', 'POST /login 200'] },
    { block: 'refresh', requests: ['POST /token 200'] },
    { block: 'sessions-verify', requests: ['GET /sessions 200', 'POST /email/verify/resend 202'], browser: ['POST /email/verify 204'] },
    { block: 'logout-reset', requests: ['POST /logout 204', 'POST /password/reset 202'], browser: ['POST /password/reset/confirm 204'] },
    { block: 'login-again', requests: ['POST /login 200', 'GET /sessions 200'] },
    { block: 'mfa-enrol', requests: ['POST /mfa/totp 200', 'POST /mfa/totp/confirm 200'] },
    { block: 'mfa-login', requests: ['POST /login 401', 'POST /login/mfa 200'] },
  ];
  let appSteps = 0;
  expect(blocks.map((block) => block.name), 'the README\'s quickstart blocks').toEqual(steps.map((step) => step.block));
  expect(blocks[0]!.script, 'the first block names the server').toContain(`API=${README_API}`);
  for (const [index, step] of steps.entries()) {
    const from = walk.console.length;
    const output = await walk.shell.run(withTheAppsCodes(blocks[index]!.script.replaceAll(README_API, walk.server.url), () => appSteps++));
    const requests = requestsSince(walk, from);
    if (JSON.stringify(requests) !== JSON.stringify(step.requests)) {
      throw new Error(`README block "${step.block}": the server answered ${JSON.stringify(requests)}, expected ${JSON.stringify(step.requests)}; output:\n${output}`);
    }
    if (output.includes('"error"')) throw new Error(`README block "${step.block}" got an error answer:\n${output}`);
    if (step.browser !== undefined) {
      const before = walk.console.length;
      await browser?.(step.block);
      // The pages' own GETs aside: what they asked the API.
      const asked = requestsSince(walk, before).filter((request) => !request.startsWith('GET '));
      if (JSON.stringify(asked) !== JSON.stringify(step.browser)) {
        throw new Error(`after "${step.block}", the page asked ${JSON.stringify(asked)}, expected ${JSON.stringify(step.browser)}`);
      }
    }
  }
}

async function startWalk(dirs: string[]): Promise<Walk> {
  const dir = await mkdtemp(join(tmpdir(), 'passlane-quickstart-'));
  dirs.push(dir);
  const lines: string[] = [];
  const output = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
  // A fresh npm start: its defaults (outbox, the pages, no app URL), ports the OS picks.
  const server = await startLocalServer({ port: 0, dynamoDbPort: 0, dataDir: join(dir, '.data'), logs: 'text', output, env: { PASSLANE_TABLE: 'passlane-users' } });
  return { server, console: lines, shell: new Shell(dir) };
}

async function stopWalk(walk: Walk | undefined): Promise<void> {
  walk?.shell.close();
  await walk?.server.stop();
}

describe.skipIf(chromiumMissing)('the README\'s quickstart', () => {
  const dirs: string[] = [];
  let context: BrowserContext;

  beforeAll(async () => {
    context = await launchHeadlessChromium(dirs);
  });
  afterAll(async () => {
    await context?.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  const newPassword = /choose a new password there, say\s+`([^`]+)`/.exec(README)?.[1];

  /** What the README says to do in the browser after a step: open the mailed link, confirm or choose `newPassword`. */
  function openTheLinks(walk: Walk): (step: string) => Promise<void> {
    const port = new URL(walk.server.url).port;
    const status = async (url: string, act: (page: import('playwright-core').Page) => Promise<void>, expected: RegExp) => {
      const page = await context.newPage();
      await page.goto(url);
      await act(page);
      await expect.poll(() => page.locator('#status').textContent(), { timeout: 20_000 }).toMatch(expected);
      await page.close();
    };
    return async (step) => {
      const kind = step === 'sessions-verify' ? 'email verification' : 'password reset';
      const { file, link } = mailedLink(walk, kind);
      // Where the README says mail goes, linking to this server's own port and page.
      expect(file).toMatch(new RegExp(`${walk.server.dataDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/outbox/[^/]+\\.eml$`));
      expect(existsSync(file)).toBe(true);
      if (kind === 'email verification') {
        expect(link).toMatch(new RegExp(`^http://localhost:${port}/verify-email#token=`));
        await status(link, (page) => page.getByRole('button', { name: 'Confirm this address' }).click(), /^Your email address is confirmed\./);
      } else {
        expect(link).toMatch(new RegExp(`^http://localhost:${port}/reset-password#token=`));
        await status(
          link,
          async (page) => {
            await page.locator('input[name=password]').fill(newPassword!);
            await page.locator('input[name=repeat]').fill(newPassword!);
            await page.getByRole('button', { name: 'Set the new password' }).click();
          },
          /^Your password is changed/,
        );
      }
    };
  }

  it('runs as written on a fresh npm start: register, login, refresh, sessions, verify and reset through the pages, login, a second factor', async () => {
    expect(newPassword, 'the README names the new password to choose').toBeDefined();
    const walk = await startWalk(dirs);
    try {
      await walkQuickstart(README, walk, openTheLinks(walk));
      // The captures held what the README says: a session's access token after the last login, with its second factor.
      const accessToken = await walk.shell.variable('ACCESS_TOKEN');
      expect(accessToken).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
      expect((JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()) as { amr: string[] }).amr).toEqual(expect.arrayContaining(['pwd', 'otp']));
      const console = walk.console.join('\n');
      for (const secret of ['ada@example.com', 'correct horse battery staple', newPassword!]) expect(console).not.toContain(secret);
    } finally {
      await stopWalk(walk);
    }
  });

  it('fails when the two-factor login reuses the code the confirmation spent (a copy without the next code)', async () => {
    const changed = README.replace(/^CODE=\d{6} +# the app's next code.*\n/m, '');
    expect(changed).not.toBe(README);
    const walk = await startWalk(dirs);
    try {
      await expect(walkQuickstart(changed, walk, openTheLinks(walk))).rejects.toThrow(/README block "mfa-login": the server answered \["POST \/login 401","POST \/login\/mfa 401"\]/);
    } finally {
      await stopWalk(walk);
    }
  });

  it('fails when the README and the server disagree (a copy with POST /token spelled /tokens)', async () => {
    const changed = README.replace('$API/token ', '$API/tokens ');
    expect(changed).not.toBe(README);
    const walk = await startWalk(dirs);
    try {
      await expect(walkQuickstart(changed, walk)).rejects.toThrow(/README block "refresh": the server answered \["POST unknown 404"\], expected \["POST \/token 200"\]/);
    } finally {
      await stopWalk(walk);
    }
  });
});
