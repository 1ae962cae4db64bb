/**
 * `npm start`'s pages for the links its mails carry, so reset and verification work in a browser
 * with no app yet: plain HTML and a little script that posts to the API on the same origin.
 *   <reset path>     (/reset-password#token=...)  choose a new password: POST /password/reset/confirm
 *   <verify path>    (/verify-email#token=...)    confirm the address:    POST /email/verify
 *   <sign-in path>   (/sign-in)                   sign in (POST /login), or ask for a reset link (POST /password/reset)
 * Served only while the mails link to this server (PASSLANE_APP_URL unset): a set PASSLANE_APP_URL
 * is the user's own app, whose pages take the links instead. Never on Lambda or the edge.
 *
 * The token stays in the fragment, which browsers never send; the script reads it, removes it
 * from the address bar and history, and posts it. The pages load no third-party resource and the
 * Content-Security-Policy allows only this origin; `form-action 'none'` keeps a password out of
 * any URL even if the script does not run.
 */
import type { MailConfig } from '../../mail/settings.js';
import { escapeHtml } from '../../mail/templates.js';

/** Under a prefix no API route uses. */
const ASSET_PATH = '/_passlane/';

export interface LocalPages {
  /** The pages' paths, for the banner. */
  paths: { passwordReset: string; emailVerification: string; signIn: string };
  /** The page or asset for a GET or HEAD of one of these paths, else undefined (the API's). */
  answer(request: Request): Response | undefined;
}

type PageKind = 'reset' | 'verify' | 'sign-in';

export function createLocalPages(mail: Pick<MailConfig, 'paths' | 'serviceName'>): LocalPages {
  const { paths, serviceName } = mail;
  const documents = new Map<string, { body: string; type: string }>([
    [paths.passwordReset, { body: page('reset', `Choose a new password`, serviceName, paths.signIn), type: 'text/html' }],
    [paths.emailVerification, { body: page('verify', `Confirm your email address`, serviceName, paths.signIn), type: 'text/html' }],
    [paths.signIn, { body: page('sign-in', `Sign in`, serviceName, paths.signIn), type: 'text/html' }],
    [`${ASSET_PATH}pages.js`, { body: SCRIPT, type: 'text/javascript' }],
    [`${ASSET_PATH}pages.css`, { body: STYLE, type: 'text/css' }],
  ]);
  return {
    paths,
    answer(request) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
      const found = documents.get(new URL(request.url).pathname);
      if (found === undefined) return undefined;
      return new Response(request.method === 'HEAD' ? null : found.body, { status: 200, headers: { ...HEADERS, 'content-type': `${found.type}; charset=utf-8` } });
    },
  };
}

const HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

function page(kind: PageKind, title: string, serviceName: string, signInPath: string): string {
  const forms: Record<PageKind, string> = {
    reset: `<form id="reset" method="post" hidden>
  <label>New password <input name="password" type="password" autocomplete="new-password" required></label>
  <label>The same again <input name="repeat" type="password" autocomplete="new-password" required></label>
  <button>Set the new password</button>
</form>`,
    verify: `<form id="verify" method="post" hidden>
  <button>Confirm this address</button>
</form>`,
    'sign-in': `<form id="sign-in" method="post">
  <label>Email <input name="email" type="email" autocomplete="username" required></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button>Sign in</button>
</form>
<h2>Forgot your password?</h2>
<form id="forgot" method="post">
  <label>Email <input name="email" type="email" autocomplete="username" required></label>
  <button>Mail me a reset link</button>
</form>`,
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ${escapeHtml(serviceName)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSET_PATH}pages.css">
<script src="${ASSET_PATH}pages.js" defer></script>
</head>
<body>
<main data-page="${kind}" data-sign-in="${escapeHtml(signInPath)}">
<h1>${escapeHtml(title)}</h1>
${forms[kind]}
<p id="status" role="status" aria-live="polite"></p>
<p class="note">${escapeHtml(serviceName)}'s local page, served by <code>npm start</code> for the links it mails. Set <code>PASSLANE_APP_URL</code> to send the links to your own app instead.</p>
</main>
</body>
</html>
`;
}

// Plain script, no build step. Messages come from the API's `error.message`, which never echoes input.
const SCRIPT = String.raw`'use strict';
(function () {
  var main = document.querySelector('main');
  var status = document.getElementById('status');
  var signIn = main.dataset.signIn;
  function say(text, kind, link) {
    status.textContent = text;
    status.dataset.kind = kind;
    if (link) {
      var a = document.createElement('a');
      a.href = link.href;
      a.textContent = link.text;
      status.append(' ', a);
    }
  }
  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(function (response) {
      return response.text().then(function (text) {
        var json;
        try { json = text ? JSON.parse(text) : undefined; } catch (e) { json = undefined; }
        return { status: response.status, error: json && json.error ? json.error : undefined, body: json };
      });
    });
  }
  function failed(answer) {
    say(answer.error ? answer.error.message : 'The server answered ' + answer.status + '.', 'error');
  }
  function offline() { say('The server could not be reached. Is npm start still running?', 'error'); }
  function onSubmit(form, handle) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var button = form.querySelector('button');
      button.disabled = true;
      Promise.resolve(handle(new FormData(form))).catch(offline).finally(function () { button.disabled = false; });
    });
  }
  // The token is in the fragment, which the browser never sends: take it, then drop it from the
  // address bar and the history.
  var token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  // Another link pasted into this tab changes only the fragment: start over with its token.
  window.addEventListener('hashchange', function () { location.reload(); });
  var used = 'This link is no longer valid: it was used, a newer one replaced it, or it expired.';

  if (main.dataset.page === 'reset' || main.dataset.page === 'verify') {
    var form = document.getElementById(main.dataset.page);
    if (!token) {
      say('This page takes the link from the mail (it ends in #token=...). Open the link itself.', 'error', { href: signIn, text: 'Ask for a new one' });
      return;
    }
    form.hidden = false;
    if (main.dataset.page === 'reset') {
      onSubmit(form, function (data) {
        if (data.get('password') !== data.get('repeat')) return say('The two passwords differ.', 'error');
        return post('/password/reset/confirm', { token: token, newPassword: data.get('password') }).then(function (answer) {
          if (answer.status === 204) {
            form.hidden = true;
            return say('Your password is changed, and every session signed in before has ended.', 'ok', { href: signIn, text: 'Sign in' });
          }
          if (answer.error && answer.error.code === 'invalid_token') {
            form.hidden = true;
            return say(used, 'error', { href: signIn, text: 'Ask for a new one' });
          }
          failed(answer);
        });
      });
    } else {
      onSubmit(form, function () {
        return post('/email/verify', { token: token }).then(function (answer) {
          form.hidden = true;
          if (answer.status === 204) return say('Your email address is confirmed.', 'ok', { href: signIn, text: 'Sign in' });
          if (answer.error && answer.error.code === 'invalid_token') return say(used + ' If you confirmed it already, just sign in.', 'error', { href: signIn, text: 'Sign in' });
          form.hidden = false;
          failed(answer);
        });
      });
    }
  } else if (main.dataset.page === 'sign-in') {
    onSubmit(document.getElementById('sign-in'), function (data) {
      return post('/login', { email: data.get('email'), password: data.get('password') }).then(function (answer) {
        if (answer.status === 200) return say('Signed in: the API issued an access token for ' + answer.body.expiresIn + ' seconds.', 'ok');
        failed(answer);
      });
    });
    onSubmit(document.getElementById('forgot'), function (data) {
      return post('/password/reset', { email: data.get('email') }).then(function (answer) {
        if (answer.status === 202) return say('If an account has this address, a reset link is on its way. npm start writes it to the outbox and prints the link on its console.', 'ok');
        failed(answer);
      });
    });
  }
})();
`;

const STYLE = `body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #f6f6f4; }
main { max-width: 26rem; margin: 3rem auto; padding: 1.5rem 2rem; background: #fff; border-radius: 8px; box-shadow: 0 1px 4px #0002; }
h1 { font-size: 1.4rem; margin-top: 0; }
h2 { font-size: 1.1rem; margin-top: 2rem; }
label { display: block; margin: 0 0 0.8rem; }
input { display: block; box-sizing: border-box; width: 100%; margin-top: 0.2rem; padding: 0.45rem; font: inherit; }
button { padding: 0.5rem 1rem; font: inherit; cursor: pointer; }
#status[data-kind="ok"] { color: #176b2c; }
#status[data-kind="error"] { color: #a11d1d; }
.note { color: #666; font-size: 0.85rem; margin-top: 2rem; }
`;
