/**
 * `npm start`'s pages for the links its mails carry, so reset and verification work in a browser
 * with no app yet, and a page to try passkeys on: plain HTML and a little script that calls the
 * API on the same origin.
 *   <reset path>      (/reset-password#token=...)  choose a new password: POST /password/reset/confirm
 *   <verify path>     (/verify-email#token=...)    confirm the address:    POST /email/verify
 *   <undo path>       (/undo-factor#token=...)     "this wasn't me":       POST /mfa/undo
 *   <sign-in path>    (/sign-in)                   sign in with the password (POST /login, then POST /login/mfa
 *                                                  when a second factor is asked for) or a passkey (POST
 *                                                  /passkey/login), or ask for a reset link (POST /password/reset);
 *                                                  "Continue with <provider>" for each configured provider: the
 *                                                  page is the app (its own PKCE verifier, GET /oauth/<name>/start
 *                                                  back to itself, the app code redeemed at POST /oauth/token, a
 *                                                  link after a password login when its email has an account)
 *   /account/passkeys                              delete the account (DELETE /account, after a confirm step);
 *                                                  list, add, rename and remove the passkeys (/passkeys...) with
 *                                                  the access token of the sign-in in this tab; ask to move the
 *                                                  account to a new address (POST /email/change)
 *   <email change path> (/confirm-email-change#token=...) the new address's link: POST /email/change/confirm
 *   <email undo path>   (/undo-email-change#token=...)    the old address's "this wasn't me": POST /email/change/undo
 *   <approval path>   (/approve-device#token=...) make this browser a known device: POST /devices/approval/confirm
 *                                                  (the browser adds the client secret's cookie of its request);
 *                                                  /sign-in asks for one (POST /devices/approval) when a login is limited
 * Served only while the mails link to this server (PASSLANE_APP_URL unset): a set PASSLANE_APP_URL
 * is the user's own app, whose pages take the links instead. Never on Lambda or the edge.
 *
 * The token stays in the fragment, which browsers never send; the script reads it, removes it
 * from the address bar and history, and posts it. The pages load no third-party resource and the
 * Content-Security-Policy allows only this origin; `form-action 'none'` keeps a password out of
 * any URL even if the script does not run. The access token of a sign-in is kept in
 * sessionStorage (this tab only, gone when it closes), never in a URL.
 */
import type { MailConfig } from '../../mail/settings.js';
import { escapeHtml } from '../../mail/templates.js';

/** Under a prefix no API route uses. */
const ASSET_PATH = '/_passlane/';
/** No API route uses /account/ either; not a mail setting, since no mail links here. */
const PASSKEYS_PATH = '/account/passkeys';

export interface LocalPages {
  /** The pages' paths, for the banner. */
  paths: MailConfig['paths'] & { passkeys: string };
  /** The page or asset for a GET or HEAD of one of these paths, else undefined (the API's). */
  answer(request: Request): Response | undefined;
}

type PageKind = 'reset' | 'verify' | 'undo' | 'sign-in' | 'passkeys' | 'approve' | 'email-change' | 'email-undo';

/**
 * `providers`: the names of the sign-in providers configured (PASSLANE_OAUTH_PROVIDERS), each a
 * "Continue with" button on the sign-in page; their `redirectOrigins` must hold this server's
 * origin for the start to come back here.
 */
export function createLocalPages(mail: Pick<MailConfig, 'paths' | 'serviceName'>, providers: readonly string[] = []): LocalPages {
  const paths = { ...mail.paths, passkeys: PASSKEYS_PATH };
  const html = (kind: PageKind, title: string) => ({ body: page(kind, title, mail.serviceName, paths, providers), type: 'text/html' });
  const documents = new Map<string, { body: string; type: string }>([
    [paths.passwordReset, html('reset', 'Choose a new password')],
    [paths.emailVerification, html('verify', 'Confirm your email address')],
    [paths.factorUndo, html('undo', 'Undo a sign-in method you did not add')],
    [paths.signIn, html('sign-in', 'Sign in')],
    [paths.passkeys, html('passkeys', 'Your passkeys')],
    [paths.deviceApproval, html('approve', 'Approve this device')],
    [paths.emailChange, html('email-change', 'Confirm your new email address')],
    [paths.emailChangeUndo, html('email-undo', 'Undo a change of email address')],
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

/** How a button names a provider: the well-known ones as they spell themselves, any other by its configured name. */
const PROVIDER_LABELS: Readonly<Record<string, string>> = { google: 'Google', microsoft: 'Microsoft', apple: 'Apple', github: 'GitHub' };

function providerButtons(providers: readonly string[]): string {
  if (providers.length === 0) return '';
  const buttons = providers.map(
    (name) => `  <form class="provider" data-provider="${escapeHtml(name)}" method="post"><button>Continue with ${escapeHtml(PROVIDER_LABELS[name] ?? name)}</button></form>`,
  );
  return `<section id="providers">
${buttons.join('\n')}
</section>
<p id="link-pending" hidden>An account already has this provider's email address. Sign in with its password below: the provider is then linked to it, and either way signs you in.</p>
`;
}

function page(kind: PageKind, title: string, serviceName: string, paths: LocalPages['paths'], providers: readonly string[] = []): string {
  const forms: Record<PageKind, string> = {
    reset: `<form id="reset" method="post" hidden>
  <label>New password <input name="password" type="password" autocomplete="new-password" required></label>
  <label>The same again <input name="repeat" type="password" autocomplete="new-password" required></label>
  <button>Set the new password</button>
</form>`,
    verify: `<form id="verify" method="post" hidden>
  <button>Confirm this address</button>
</form>`,
    undo: `<form id="undo" method="post" hidden>
  <p>This removes the sign-in method your mail was about, signs every device out, and stops your password from working until you choose a new one with the link we mail you.</p>
  <button>Remove it and sign everything out</button>
</form>`,
    'sign-in': `${providerButtons(providers)}<form id="sign-in" method="post">
  <label>Email <input name="email" type="email" autocomplete="username" required></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button>Sign in</button>
</form>
<form id="passkey" method="post">
  <h2>Sign in with a passkey</h2>
  <button>Use a passkey</button>
</form>
<section id="second-factor" hidden>
  <h2>Second step</h2>
  <form id="mfa-passkey" method="post" hidden>
    <button>Use your passkey</button>
  </form>
  <form id="mfa-code" method="post" hidden>
    <label>Kind of code <select name="method"></select></label>
    <label>Code <input name="code" autocomplete="one-time-code" required></label>
    <button>Finish signing in</button>
  </form>
</section>
<p id="signed-in" hidden><a href="${escapeHtml(paths.passkeys)}">Manage your passkeys</a></p>
<form id="ask-approval" method="post" hidden>
  <p>Sign-ins from new devices are paused for this address. If it is yours, a link by mail can make this browser a known device: then your password works here.</p>
  <button>Approve this device by mail</button>
</form>
<h2>Forgot your password?</h2>
<form id="forgot" method="post">
  <label>Email <input name="email" type="email" autocomplete="username" required></label>
  <button>Mail me a reset link</button>
</form>`,
    'email-change': `<form id="email-change" method="post" hidden>
  <p>This makes the address this mail came to the one your account signs in with; the old one stops working, and every device is signed out.</p>
  <button>Use this address</button>
</form>`,
    'email-undo': `<form id="email-undo" method="post" hidden>
  <p>This puts this address back on your account, signs every device out, and stops your password from working until you choose a new one with the link we mail you.</p>
  <button>Put my address back and sign everything out</button>
</form>`,
    approve: `<form id="approve" method="post" hidden>
  <p>Open this link in the browser that asked for it: the approval works only there.</p>
  <button>Approve this device</button>
</form>`,
    passkeys: `<section id="account" hidden>
  <ul id="passkeys"></ul>
  <p id="no-passkeys" hidden>No passkeys yet.</p>
  <form id="add-passkey" method="post">
    <label>Name (optional) <input name="name" maxlength="64" placeholder="This laptop"></label>
    <button>Add a passkey</button>
  </form>
  <section id="recovery-codes" hidden>
    <h2>Your recovery codes</h2>
    <p>Each one signs you in once if your passkeys are lost. Write them down now: they are not shown again.</p>
    <ol></ol>
  </section>
  <h2>Your email address</h2>
  <form id="change-email" method="post">
    <label>New address <input name="newEmail" type="email" autocomplete="email" required></label>
    <button>Change my email address</button>
  </form>
  <form id="sign-out" method="post">
    <button>Sign out</button>
  </form>
  <h2>Delete your account</h2>
  <form id="delete-account" method="post">
    <p>This erases your account, its passkeys and every session; it cannot be undone. It needs a recent sign-in (with your passkey, if you have one).</p>
    <button>Delete my account…</button>
  </form>
  <form id="confirm-delete" method="post" hidden>
    <label>Type DELETE to confirm <input name="confirm" autocomplete="off" required></label>
    <button>Delete it for good</button>
    <button type="button" id="keep-account">Keep it</button>
  </form>
</section>`,
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
<main data-page="${kind}" data-sign-in="${escapeHtml(paths.signIn)}" data-passkeys="${escapeHtml(paths.passkeys)}">
<h1>${escapeHtml(title)}</h1>
${forms[kind]}
<p id="status" role="status" aria-live="polite"></p>
<p class="note">${escapeHtml(serviceName)}'s local page, served by <code>npm start</code> to try the API in a browser. Set <code>PASSLANE_APP_URL</code> to send the mailed links to your own app instead.</p>
</main>
</body>
</html>
`;
}

// Plain script, no build step. Messages come from the API's `error.message`, which never echoes
// input; names the user typed are set as text, never as HTML.
const SCRIPT = String.raw`'use strict';
(function () {
  var main = document.querySelector('main');
  var status = document.getElementById('status');
  var signIn = main.dataset.signIn;
  // The access token of the sign-in in this tab, for the passkeys page. sessionStorage, not
  // localStorage: it stays in this tab and is gone when the tab closes, instead of lasting on disk
  // for every tab of this origin. Never in a URL, where history and logs would keep it.
  var TOKEN = 'passlane.accessToken';
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
  /** A failure this page explains in words (the server unreachable, a passkey refused by the browser). */
  function Failure(message) { this.message = message; }
  function request(method, path, body, accessToken) {
    var headers = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (accessToken) headers.authorization = 'Bearer ' + accessToken;
    return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(function (response) {
      return response.text().then(function (text) {
        var json;
        try { json = text ? JSON.parse(text) : undefined; } catch (e) { json = undefined; }
        return { status: response.status, error: json && json.error ? json.error : undefined, body: json };
      });
    }, function () {
      throw new Failure('The server could not be reached. Is npm start still running?');
    });
  }
  function post(path, body) { return request('POST', path, body); }
  function failed(answer, link) {
    say(answer.error ? answer.error.message : 'The server answered ' + answer.status + '.', 'error', link);
  }
  /** Runs one action of a button, which stays disabled meanwhile. */
  function busy(button, work) {
    button.disabled = true;
    Promise.resolve().then(work).catch(function (error) {
      if (error instanceof Failure) return say(error.message, 'error');
      say('This page failed: ' + error, 'error');
      console.error(error);
    }).finally(function () { button.disabled = false; });
  }
  function onSubmit(form, handle) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      busy(event.submitter || form.querySelector('button'), function () { return handle(new FormData(form)); });
    });
  }

  // Passkeys through WebAuthn's JSON methods: the API's options go in as they come, the credential
  // goes back as toJSON() makes it; no helper library.
  var webauthn = typeof PublicKeyCredential === 'function' && typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function' &&
    typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function';
  function refused(error) {
    switch (error && error.name) {
      // The browser gives this one answer for a cancelled or timed-out prompt and for no passkey of
      // this site on this device, so that a page cannot probe which passkeys a device holds.
      case 'NotAllowedError': return new Failure('No passkey was used: the prompt was cancelled or timed out, or this device has no passkey for this site.');
      case 'InvalidStateError': return new Failure('This device already holds a passkey for this account.');
      case 'SecurityError': return new Failure('The browser refused passkeys on ' + location.hostname + ': the server\'s relying-party ID (PASSLANE_WEBAUTHN_RP_ID) must be this host name, and an IP address cannot be one. Open the page at http://localhost:' + location.port + '.');
      default: return new Failure('The browser could not use a passkey (' + ((error && error.name) || 'unknown error') + ').');
    }
  }
  function withPasskey(use) {
    if (!webauthn) return Promise.reject(new Failure('This browser cannot use passkeys here: it lacks WebAuthn or its JSON methods.'));
    return Promise.resolve().then(use).then(function (credential) { return credential.toJSON(); }, function (error) { throw refused(error); });
  }
  function getPasskey(options) {
    return withPasskey(function () { return navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) }); });
  }
  function createPasskey(options) {
    return withPasskey(function () { return navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) }); });
  }

  // The token is in the fragment, which the browser never sends: take it, then drop it from the
  // address bar and the history.
  var token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  // Another link pasted into this tab changes only the fragment: start over with its token.
  window.addEventListener('hashchange', function () { location.reload(); });
  var used = 'This link is no longer valid: it was used, a newer one replaced it, or it expired.';

  if (main.dataset.page === 'email-change' || main.dataset.page === 'email-undo') {
    var linkForm = document.getElementById(main.dataset.page);
    if (!token) return say('This page takes the link from the mail (it ends in #token=...). Open the link itself.', 'error', { href: signIn, text: 'Sign in' });
    linkForm.hidden = false;
    var change = main.dataset.page === 'email-change';
    onSubmit(linkForm, function () {
      return post(change ? '/email/change/confirm' : '/email/change/undo', { token: token }).then(function (answer) {
        linkForm.hidden = true;
        if (change && answer.status === 204) return say('Your account now signs in with this address. Every device was signed out.', 'ok', { href: signIn, text: 'Sign in' });
        if (!change && answer.status === 200) {
          return say(answer.body.emailRestored
            ? 'Your address is back. Every device is signed out and your password no longer works: a link to choose a new one is on its way to your mailbox.'
            : 'This address has another account now, so it could not come back. The account was disabled and every device signed out; contact the service\'s support.', 'ok');
        }
        if (answer.error && answer.error.code === 'invalid_token') return say(used, 'error', { href: signIn, text: 'Sign in' });
        if (answer.error && answer.error.code !== 'email_taken') linkForm.hidden = false;
        failed(answer);
      });
    });
  } else if (main.dataset.page === 'reset' || main.dataset.page === 'verify' || main.dataset.page === 'undo') {
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
    } else if (main.dataset.page === 'undo') {
      onSubmit(form, function () {
        return post('/mfa/undo', { token: token }).then(function (answer) {
          form.hidden = true;
          if (answer.status === 200) {
            return say((answer.body.factorRemoved ? 'Removed. ' : 'It was removed already. ') +
              'Every device is signed out and your password no longer works: a link to choose a new one is on its way to your mailbox.', 'ok');
          }
          if (answer.error && answer.error.code === 'invalid_token') return say(used, 'error', { href: signIn, text: 'Sign in' });
          form.hidden = false;
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
  } else if (main.dataset.page === 'approve') {
    // The link's token and this browser's cookie from its request (the client secret, which
    // no script reads) go together: the link opened in another browser does nothing.
    var approveForm = document.getElementById('approve');
    var ask = { href: signIn, text: 'Ask again' };
    if (!token) return say('This page takes the link from the mail (it ends in #token=...). Open the link itself.', 'error', ask);
    approveForm.hidden = false;
    onSubmit(approveForm, function () {
      return post('/devices/approval/confirm', { token: token }).then(function (answer) {
        approveForm.hidden = true;
        if (answer.status === 200) return say('This browser is approved: sign in with your password.', 'ok', { href: signIn, text: 'Sign in' });
        if (answer.error && answer.error.code === 'invalid_token') {
          return say('This link does not work here: it was used or it expired, or this is not the browser that asked for it (open it there).', 'error', ask);
        }
        approveForm.hidden = false;
        failed(answer);
      });
    });
  } else if (main.dataset.page === 'sign-in') {
    var passwordForm = document.getElementById('sign-in');
    var passkeyForm = document.getElementById('passkey');
    var secondFactor = document.getElementById('second-factor');
    var passkeyStep = document.getElementById('mfa-passkey');
    var codeStep = document.getElementById('mfa-code');
    var CODES = { totp: 'Code of the authenticator app', recovery_code: 'Recovery code' };
    var mfa; // the password step's 401 mfa_required: mfaToken, methods, and webauthn's options
    function signedIn(answer) {
      if (answer.status !== 200) {
        if (answer.error && answer.error.code === 'invalid_mfa_token') {
          secondFactor.hidden = true;
          return failed(answer, { href: signIn, text: 'Start over' });
        }
        return failed(answer);
      }
      sessionStorage.setItem(TOKEN, answer.body.accessToken);
      passwordForm.hidden = passkeyForm.hidden = secondFactor.hidden = true;
      if (providerList) providerList.hidden = true;
      document.getElementById('signed-in').hidden = false;
      var signedInText = 'Signed in: the API issued an access token for ' + answer.body.expiresIn + ' seconds.';
      say(signedInText, 'ok');
      // A provider's sign-in met this account's email: the password login just made is the recent one the link asks for.
      var pending = sessionStorage.getItem(LINK);
      if (!pending) return;
      sessionStorage.removeItem(LINK);
      linkNotice.hidden = true;
      return request('POST', '/identities/link', { linkToken: pending }, answer.body.accessToken).then(function (linked) {
        if (linked.status !== 201) return failed(linked);
        say(signedInText + ' ' + (PROVIDER_NAMES[linked.body.provider] || linked.body.provider) + ' is now linked to this account: it signs you in too.', 'ok');
      });
    }
    function secondStep(body, why) {
      mfa = body;
      var methods = body.methods || [];
      passwordForm.hidden = passkeyForm.hidden = true;
      secondFactor.hidden = false;
      passkeyStep.hidden = !(methods.indexOf('webauthn') >= 0 && body.webauthn);
      var select = codeStep.querySelector('select');
      select.replaceChildren.apply(select, methods.filter(function (method) { return CODES.hasOwnProperty(method); }).map(function (method) {
        return new Option(CODES[method], method);
      }));
      codeStep.hidden = select.options.length === 0;
      if (providerList) providerList.hidden = true;
      say(why || 'The password is right; a second factor finishes the sign-in.', 'ok');
    }

    // Sign-in with providers: this page is the app. It makes the PKCE pair, keeps the verifier in
    // this tab (sessionStorage) and sends the browser to the start, which comes back here with a
    // one-use code (or an error) that only this verifier redeems.
    var providerList = document.getElementById('providers');
    var linkNotice = document.getElementById('link-pending');
    var VERIFIER = 'passlane.oauthVerifier';
    var LINK = 'passlane.linkToken';
    var PROVIDER_NAMES = { google: 'Google', microsoft: 'Microsoft', apple: 'Apple', github: 'GitHub' };
    function base64url(bytes) {
      return btoa(String.fromCharCode.apply(null, new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    }
    document.querySelectorAll('form.provider').forEach(function (form) {
      onSubmit(form, function () {
        var verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
        return crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)).then(function (hash) {
          sessionStorage.setItem(VERIFIER, verifier);
          var back = location.origin + location.pathname;
          location.assign('/oauth/' + encodeURIComponent(form.dataset.provider) + '/start?redirect_to=' + encodeURIComponent(back) +
            '&code_challenge=' + base64url(hash) + '&code_challenge_method=S256');
          return new Promise(function () {}); // the button stays disabled while the browser leaves
        });
      });
    });
    var returned = new URLSearchParams(location.search);
    if (returned.has('code') || returned.has('error')) {
      // The code is one use and worthless without the verifier, but it leaves the address bar and the history at once.
      history.replaceState(null, '', location.pathname);
      var verifier = sessionStorage.getItem(VERIFIER);
      sessionStorage.removeItem(VERIFIER);
      if (returned.has('error')) {
        say(returned.get('error') === 'temporarily_unavailable' ? 'The provider could not be reached: try again in a moment.' : 'The provider did not sign you in (refused or cancelled).', 'error');
      } else if (!verifier) {
        say('This sign-in was started in another tab or browser: start it again here.', 'error');
      } else {
        post('/oauth/token', { code: returned.get('code'), codeVerifier: verifier }).then(function (answer) {
          if (answer.error && answer.error.code === 'mfa_required') return secondStep(answer.body, 'The provider signed you in; a second factor finishes the sign-in.');
          if (answer.error && answer.error.code === 'identity_link_required' && answer.body.linkToken) {
            sessionStorage.setItem(LINK, answer.body.linkToken);
            linkNotice.hidden = false;
            return say(answer.error.message, 'ok');
          }
          return signedIn(answer);
        }).catch(function (error) { say(error instanceof Failure ? error.message : 'This page failed: ' + error, 'error'); });
      }
    }
    var askApproval = document.getElementById('ask-approval');
    onSubmit(passwordForm, function (data) {
      return post('/login', { email: data.get('email'), password: data.get('password') }).then(function (answer) {
        if (answer.error && answer.error.code === 'mfa_required') return secondStep(answer.body);
        // A limited login (a stranger's failures on this address, most often): a known device is
        // not held to it, and a mailed approval makes this browser one.
        askApproval.hidden = answer.status !== 429;
        signedIn(answer);
      });
    });
    onSubmit(askApproval, function () {
      return post('/devices/approval', { email: passwordForm.elements.email.value }).then(function (answer) {
        if (answer.status !== 202) return failed(answer);
        askApproval.hidden = true;
        say('If an account has this address, an approval link is on its way: open it in this browser. npm start writes it to the outbox and prints the link on its console.', 'ok');
      });
    });
    onSubmit(passkeyForm, function () {
      return post('/passkey/login/options').then(function (answer) {
        if (answer.status !== 200) return failed(answer);
        return getPasskey(answer.body).then(function (response) { return post('/passkey/login', { response: response }); }).then(signedIn);
      });
    });
    onSubmit(passkeyStep, function () {
      return getPasskey(mfa.webauthn).then(function (response) {
        return post('/login/mfa', { mfaToken: mfa.mfaToken, method: 'webauthn', response: response });
      }).then(signedIn);
    });
    onSubmit(codeStep, function (data) {
      return post('/login/mfa', { mfaToken: mfa.mfaToken, method: data.get('method'), code: data.get('code').trim() }).then(signedIn);
    });
    onSubmit(document.getElementById('forgot'), function (data) {
      return post('/password/reset', { email: data.get('email') }).then(function (answer) {
        if (answer.status === 202) return say('If an account has this address, a reset link is on its way. npm start writes it to the outbox and prints the link on its console.', 'ok');
        failed(answer);
      });
    });
  } else if (main.dataset.page === 'passkeys') {
    var accessToken = sessionStorage.getItem(TOKEN);
    var account = document.getElementById('account');
    var list = document.getElementById('passkeys');
    var addForm = document.getElementById('add-passkey');
    var again = { href: signIn, text: 'Sign in' };
    if (!accessToken) return say('Sign in first: this page uses the access token of a sign-in in this tab.', 'error', again);
    function api(method, path, body) { return request(method, path, body, accessToken); }
    // A refused token (expired, or its session ended) is dropped; a login too old for the change links to a new one.
    function problem(answer) {
      if (answer.status === 401) {
        sessionStorage.removeItem(TOKEN);
        account.hidden = true;
        return failed(answer, again);
      }
      failed(answer, answer.error && answer.error.code === 'reauthentication_required' ? { href: signIn, text: 'Sign in again' } : undefined);
    }
    function when(iso) { return new Date(iso).toLocaleString(); }
    function kept(passkey) {
      if (passkey.deviceType !== 'multiDevice') return 'kept on this one authenticator';
      return passkey.backedUp ? 'synced' : 'can sync, not backed up yet';
    }
    function item(passkey) {
      var path = '/passkeys/' + encodeURIComponent(passkey.id);
      var li = document.createElement('li');
      var rename = document.createElement('form');
      var input = document.createElement('input');
      input.name = 'name';
      input.value = passkey.name;
      input.maxLength = 64;
      input.required = true;
      var label = document.createElement('label');
      label.append('Name ', input);
      var renameButton = document.createElement('button');
      renameButton.textContent = 'Rename';
      var remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = 'Remove';
      var about = document.createElement('small');
      about.textContent = 'Added ' + when(passkey.createdAt) + ', ' + (passkey.lastUsedAt ? 'last used ' + when(passkey.lastUsedAt) : 'not used yet') + ', ' + kept(passkey) + '.';
      rename.append(label, renameButton, ' ', remove, about);
      li.append(rename);
      onSubmit(rename, function (data) {
        return api('PATCH', path, { name: data.get('name').trim() }).then(function (answer) {
          if (answer.status !== 200) return problem(answer);
          return load().then(function () { say('Renamed.', 'ok'); });
        });
      });
      remove.addEventListener('click', function () {
        busy(remove, function () {
          return api('DELETE', path).then(function (answer) {
            if (answer.status !== 204) return problem(answer);
            return load().then(function () { say('Removed. The authenticator may still list it: the server no longer accepts it.', 'ok'); });
          });
        });
      });
      return li;
    }
    function load() {
      return api('GET', '/passkeys').then(function (answer) {
        if (answer.status !== 200) return problem(answer);
        list.replaceChildren.apply(list, answer.body.passkeys.map(item));
        document.getElementById('no-passkeys').hidden = answer.body.passkeys.length > 0;
        account.hidden = false;
      });
    }
    function showCodes(codes) {
      var shown = document.getElementById('recovery-codes');
      var ol = shown.querySelector('ol');
      ol.replaceChildren.apply(ol, codes.map(function (code) {
        var li = document.createElement('li');
        li.textContent = code;
        return li;
      }));
      shown.hidden = false;
    }
    onSubmit(addForm, function (data) {
      var name = data.get('name').trim();
      return api('POST', '/passkeys/registration/options').then(function (answer) {
        if (answer.status !== 200) return problem(answer);
        return createPasskey(answer.body).then(function (response) {
          return api('POST', '/passkeys/registration', name ? { response: response, name: name } : { response: response });
        }).then(function (answer) {
          if (answer.status !== 201) return problem(answer);
          addForm.reset();
          if (answer.body.recoveryCodes) showCodes(answer.body.recoveryCodes);
          return load().then(function () { say('Passkey added.', 'ok'); });
        });
      });
    });
    var changeForm = document.getElementById('change-email');
    onSubmit(changeForm, function (data) {
      return api('POST', '/email/change', { newEmail: data.get('newEmail') }).then(function (answer) {
        if (answer.status !== 202) return problem(answer);
        changeForm.reset();
        say('A link is on its way to the new address, if it can take the account: open it to make the change. Until then your address stays as it is. npm start writes it to the outbox and prints the link on its console.', 'ok');
      });
    });
    onSubmit(document.getElementById('sign-out'), function () {
      return api('POST', '/logout').then(function (answer) {
        if (answer.status !== 204 && answer.status !== 401) return failed(answer);
        sessionStorage.removeItem(TOKEN);
        account.hidden = true;
        say('Signed out.', 'ok', again);
      });
    });
    // Deleting asks twice: the first button only shows the confirm step, which needs the word typed.
    var deleteForm = document.getElementById('delete-account');
    var confirmForm = document.getElementById('confirm-delete');
    onSubmit(deleteForm, function () {
      deleteForm.hidden = true;
      confirmForm.hidden = false;
      confirmForm.querySelector('input').focus();
    });
    document.getElementById('keep-account').addEventListener('click', function () {
      confirmForm.reset();
      confirmForm.hidden = true;
      deleteForm.hidden = false;
    });
    onSubmit(confirmForm, function (data) {
      if (String(data.get('confirm')).trim() !== 'DELETE') return say('Type DELETE to confirm, or keep the account.', 'error');
      return api('DELETE', '/account').then(function (answer) {
        if (answer.status !== 204) return problem(answer);
        sessionStorage.removeItem(TOKEN);
        account.hidden = true;
        say('Your account is deleted. A mail confirms it.', 'ok');
      });
    });
    busy(addForm.querySelector('button'), load);
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
#providers form { margin-bottom: 0.6rem; }
#providers button { width: 100%; }
#status[data-kind="ok"] { color: #176b2c; }
#status[data-kind="error"] { color: #a11d1d; }
#passkeys { padding: 0; list-style: none; }
#passkeys li { margin-bottom: 1rem; }
#passkeys small { display: block; color: #666; }
#recovery-codes ol { font-family: ui-monospace, monospace; }
.note { color: #666; font-size: 0.85rem; margin-top: 2rem; }
`;
