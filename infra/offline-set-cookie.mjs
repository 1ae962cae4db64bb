/**
 * An osls plugin for serverless-offline 13 (`npm run offline`; infra/README.md, "Running offline"):
 * a function's cookie reaches the client as the function wrote it, as API Gateway turns each entry
 * of a payload 2.0 answer's `cookies` into a Set-Cookie header.
 *
 * serverless-offline 13 hands hapi the whole Set-Cookie string, attributes included, as the
 * cookie's value, and @hapi/statehood 8.2.1 refuses a value holding `;` (hapijs/statehood#90):
 * every answer that sets a cookie (a login's device cookie) became a 500
 * (dherault/serverless-offline#1866, fixed by #1885 in the 14 line, which does not run on osls).
 * At serverless-offline's start this wraps statehood's header formatting, in this process only,
 * so such a cookie is written verbatim; every other cookie is formatted as before. It hooks
 * serverless-offline's start only: `serverless package` and deploy never run it.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** How serverless-offline 13 sets a function's cookie (HttpServer.js): the only cookies left as written. */
const isWholeSetCookie = (cookie) =>
  typeof cookie?.value === 'string' && cookie.value.includes(';') && cookie.options?.encoding === 'none' && cookie.options?.strictHeader === false;

/** Makes `Definitions` (statehood's) write serverless-offline's cookies verbatim; idempotent. */
export function passSetCookieThrough(Definitions) {
  const format = Definitions.prototype.format;
  if (format.passesSetCookieThrough) return;
  const wrapped = async function (cookies, context) {
    const list = cookies ? (Array.isArray(cookies) ? cookies : [cookies]) : [];
    const headers = [];
    for (const cookie of list) {
      if (isWholeSetCookie(cookie)) headers.push(`${cookie.name}=${cookie.value}`);
      else headers.push(...(await format.call(this, [cookie], context)));
    }
    return headers;
  };
  wrapped.passesSetCookieThrough = true;
  Definitions.prototype.format = wrapped;
}

export default class OfflineSetCookie {
  /** @param {{ config: { serverlessPath: string } }} serverless */
  constructor(serverless) {
    const patch = () => passSetCookieThrough(statehoodOf(serverless.config.serverlessPath).Definitions);
    // `osls offline` runs the first, `osls offline start` the second.
    this.hooks = { 'before:offline:start': patch, 'before:offline:start:init': patch };
  }
}

/** The statehood serverless-offline's hapi uses, found from osls's own folder as osls finds its plugins. */
function statehoodOf(serverlessPath) {
  const fromOsls = createRequire(join(serverlessPath, 'index.js'));
  const fromOffline = createRequire(fromOsls.resolve('serverless-offline'));
  return createRequire(fromOffline.resolve('@hapi/hapi'))('@hapi/statehood');
}
