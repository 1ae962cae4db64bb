import { ConfigError } from './config-error.js';

/** Environment variables as strings: process.env, Deno.env.toObject(), a Worker's string bindings. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The trimmed value; set but blank counts as unset, as a template's empty parameter would be. */
export function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** AWS_LAMBDA_FUNCTION_NAME or AWS_EXECUTION_ENV is set: the Lambda runtime, where nothing is generated locally. */
export function readOnLambda(env: Env): boolean {
  return text(env, 'AWS_LAMBDA_FUNCTION_NAME') !== undefined || text(env, 'AWS_EXECUTION_ENV') !== undefined;
}

/** A whole number within [min, max], or `fallback` when unset. */
export function wholeNumber(env: Env, name: string, range: { fallback: number; min: number; max: number }): number;
export function wholeNumber(env: Env, name: string, range: { min: number; max: number }): number | undefined;
export function wholeNumber(env: Env, name: string, range: { fallback?: number; min: number; max: number }): number | undefined {
  const value = text(env, name);
  if (value === undefined) return range.fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < range.min || number > range.max) {
    throw new ConfigError(name, `must be a whole number from ${range.min} to ${range.max} (got ${JSON.stringify(value)})`);
  }
  return number;
}

/** A number within [min, max] written in decimal (`4`, `4.5`), or undefined when unset. */
export function decimalNumber(env: Env, name: string, range: { min: number; max: number }): number | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || number < range.min || number > range.max) {
    throw new ConfigError(name, `must be a decimal number from ${range.min} to ${range.max}, such as 4.5 (got ${JSON.stringify(value)})`);
  }
  return number;
}

/** One of `allowed`, or undefined when unset. */
export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[]): T | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
  }
  return value as T;
}

/**
 * Parsed JSON, or undefined when unset. The parser's message is dropped: it quotes the input,
 * and these variables hold keys.
 */
export function json(env: Env, name: string): unknown {
  const value = text(env, name);
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new ConfigError(name, 'is not valid JSON');
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * `value` as a URL that is https, or http to a loopback host (a local stand-in): what travels to
 * it (a password, a session's cookie) must not be readable or alterable on the way. `fail` makes
 * the error naming the variable; `messages` say what was expected.
 */
export function httpsOrLoopbackUrl(value: string, fail: (why: string) => Error, messages: { notUrl: string; notHttps: string }): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fail(messages.notUrl);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) throw fail(messages.notHttps);
  return url;
}
