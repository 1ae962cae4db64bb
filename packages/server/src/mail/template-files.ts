/**
 * PASSLANE_MAIL_TEMPLATE_DIR: files named `<kind>.subject.txt`, `<kind>.txt` and `<kind>.html`
 * (kind: password_reset, email_verification, registration_attempt, mfa_changed, factor_added, account_changed, email_change, email_change_attempt, email_changed) replace those parts of the
 * built-in templates; parts without a file stay built-in. Every `.txt` and `.html` file must be
 * one of those names, so a misspelt file fails instead of being ignored. Node, Bun and Deno
 * (node:fs through process.getBuiltinModule); the edge has no files: pass templates in code.
 */
import type { MailTemplate } from './default-templates.js';
import { MailConfigError } from './errors.js';
import type { MailKind } from './mail-sender.js';
import { checkTemplate, TemplateError, type MailTemplateOverrides } from './templates.js';

const VARIABLE = 'PASSLANE_MAIL_TEMPLATE_DIR';
const templateDirError = (message: string) => new MailConfigError('templateDir', `${VARIABLE} ${message}`);
const KINDS: readonly MailKind[] = ['password_reset', 'email_verification', 'registration_attempt', 'mfa_changed', 'device_approval', 'factor_added', 'account_changed', 'email_change', 'email_change_attempt', 'email_changed'];
const PARTS: ReadonlyArray<[keyof MailTemplate, string]> = [
  ['subject', '.subject.txt'],
  ['text', '.txt'],
  ['html', '.html'],
];

export async function loadTemplateDir(dir: string): Promise<MailTemplateOverrides> {
  const getBuiltinModule = globalThis.process?.getBuiltinModule;
  if (typeof getBuiltinModule !== 'function') throw templateDirError('is set, but there is no file system here: pass the templates in code');
  const fs = process.getBuiltinModule('node:fs/promises');
  const path = process.getBuiltinModule('node:path');

  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    throw templateDirError(`cannot be read (${(error as { code?: string }).code ?? 'error'}): ${dir}`);
  }
  const known = new Map<string, { kind: MailKind; part: keyof MailTemplate }>(KINDS.flatMap((kind) => PARTS.map(([part, suffix]) => [`${kind}${suffix}`, { kind, part }] as const)));
  const unknown = names.filter((name) => /\.(txt|html)$/.test(name) && !known.has(name));
  if (unknown.length > 0) throw templateDirError(`holds ${unknown[0]}, which is no template; the names are <kind>.subject.txt, <kind>.txt, <kind>.html with kind ${KINDS.join(', ')}`);

  const overrides: MailTemplateOverrides = {};
  for (const name of names) {
    const target = known.get(name);
    if (target === undefined) continue;
    const source = await fs.readFile(path.join(dir, name), 'utf8').catch((error: { code?: string }) => {
      throw templateDirError(`file ${name} cannot be read (${error.code ?? 'error'})`);
    });
    // Editors end files with a newline; a subject is one line.
    const value = target.part === 'subject' ? source.trim() : source;
    try {
      checkTemplate(target.kind, target.part, value);
    } catch (error) {
      if (error instanceof TemplateError) throw templateDirError(`file ${name}: ${error.message}`);
      throw error;
    }
    overrides[target.kind] = { ...overrides[target.kind], [target.part]: value };
  }
  return overrides;
}
