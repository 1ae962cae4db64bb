import { RedirectNotAllowedError } from '../../accounts/errors.js';

/**
 * Where a sign-in may return: an absolute http(s) URL, without credentials or fragment, whose
 * origin is one the provider's settings name exactly. Anything else is refused before the
 * provider is asked, so passlane never redirects a browser to a page an attacker chose (with a
 * code in its URL).
 */
export function allowedRedirect(redirectTo: unknown, origins: readonly string[]): URL {
  if (typeof redirectTo !== 'string' || redirectTo.length > 2048) throw new RedirectNotAllowedError();
  let url: URL;
  try {
    url = new URL(redirectTo);
  } catch {
    throw new RedirectNotAllowedError();
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '' || url.hash !== '') throw new RedirectNotAllowedError();
  if (!origins.includes(url.origin)) throw new RedirectNotAllowedError();
  return url;
}

/** The app's page with the sign-in's outcome: `code` (redeemed at POST /oauth/token), or `error`. */
export function withOutcome(redirectTo: string, outcome: { code: string } | { error: string }): string {
  const url = new URL(redirectTo);
  url.searchParams.delete('code');
  url.searchParams.delete('error');
  if ('code' in outcome) url.searchParams.set('code', outcome.code);
  else url.searchParams.set('error', outcome.error);
  return url.href;
}
