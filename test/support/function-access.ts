/**
 * What each Lambda function calls in AWS, as its code does today: the one list of per-function
 * expectations. test/iam-permissions.test.ts drives every function and checks that its recorded
 * calls are exactly these and that its role in the packaged template allows each of them and no
 * more; test/deploy-package.test.ts checks the roles' actions and parameters against it.
 *
 * One line per action and kind of item: `<action> <key prefix>` (the partition key's first
 * segment, packages/server/src/storage/table.ts), `<action> index/<name>` for an index, a bare action where no
 * key applies (Scan), `ssm:GetParameter <variable>` for the parameter named by that environment
 * variable, and `ses:SendEmail <variable>` for the SES identity (PASSLANE_SES_IDENTITY_ARN) and
 * configuration set (PASSLANE_SES_CONFIGURATION_SET) a mail goes out as: SES authorizes both, the
 * second only when one is configured (the IAM test deploys with one). Calls that happen only
 * with email verification on count: the IAM test drives those paths too, and with account events
 * on (`UpdateItem outbox#`: every function whose use cases change an account appends their events
 * to its outbox in the same transaction). When code changes what a function calls, change its lines here, its role
 * in infra/iam-roles.yml and the table in infra/README.md ("IAM") together.
 */
const PEPPER = 'ssm:GetParameter PASSLANE_PEPPER_KEYS_PARAMETER';
const SIGNING_KEY = 'ssm:GetParameter PASSLANE_JWT_PRIVATE_KEY_PARAMETER';
const FINGERPRINT_KEY = 'ssm:GetParameter PASSLANE_FINGERPRINT_KEY_PARAMETER';
const MFA_KEYS = 'ssm:GetParameter PASSLANE_MFA_KEYS_PARAMETER';
const SEND_MAIL = ['ses:SendEmail PASSLANE_SES_CONFIGURATION_SET', 'ses:SendEmail PASSLANE_SES_IDENTITY_ARN'];

/** Keyed like scripts/packaging/lambda-functions.ts (the IAM test checks that every function is here). */
export const FUNCTION_ACCESS: Record<string, readonly string[]> = {
  // Sign-in with providers: a start's state, the callback's spend of it and the app code, the
  // token route's spend of that, the identity (a conditional claim) and a first sign-in's account,
  // then the login's shared step as at POST /login (one read, the counters, an MFA token when a
  // second factor is due, the session; a verification link when one is required). The identity
  // routes: the caller's session and account (through the index), the list, a link's pending
  // item spent, a removal. The signing and fingerprint keys; no pepper, no MFA keys. (The
  // providers' secrets parameter, when deployed: test/cdk-construct.test.ts.)
  federation: [
    'dynamodb:BatchGetItem failures#',
    'dynamodb:BatchGetItem mfa#',
    'dynamodb:BatchGetItem sessions#',
    'dynamodb:BatchGetItem user#',
    'dynamodb:DeleteItem failures#',
    'dynamodb:DeleteItem identity#',
    'dynamodb:DeleteItem oauth#',
    'dynamodb:GetItem identities#',
    'dynamodb:GetItem identity#',
    'dynamodb:GetItem mfa#',
    'dynamodb:GetItem sessions#',
    'dynamodb:GetItem user#',
    'dynamodb:PutItem identity#',
    'dynamodb:PutItem mfalogin#',
    'dynamodb:PutItem oauth#',
    'dynamodb:PutItem token#',
    'dynamodb:PutItem user#',
    'dynamodb:Query index/userId-index',
    'dynamodb:UpdateItem failures#',
    'dynamodb:UpdateItem identities#',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem ratelimit#',
    'dynamodb:UpdateItem sessions#',
    ...SEND_MAIL,
    FINGERPRINT_KEY,
    SIGNING_KEY,
  ],
  // A conditional create (a duplicate's stored item comes back with the failed condition, so no
  // read); the per-source counter. With email verification on: the new account's verification
  // token (token#verify#) and mail, or for a taken email a mail to its owner; each within the
  // account's mail budget (ratelimit#), keyed by the email fingerprint (always built).
  register: ['dynamodb:PutItem token#', 'dynamodb:PutItem user#', 'dynamodb:UpdateItem outbox#', 'dynamodb:UpdateItem ratelimit#', PEPPER, FINGERPRINT_KEY, ...SEND_MAIL],
  // The account, its failure counters and its sessions in one read; failure counters after a
  // failed verify, cleared after a good login; the upgrade of an outdated hash
  // (packages/server/src/features/login/LIMITS.md); the new session. With a verified email required, a correct login
  // on an unverified account: a new verification token and its mail, within the mail budget.
  // With lazy migration: the migrated account, a conditional create as registration's; the old
  // system's breaker, read with the rest, opened by an outage and closed by its next answer.
  // The account's factors (mfa#) with the rest of the login's read; with one, a right password
  // gets an MFA token (mfalogin#); POST /login/mfa reads it, counts a wrong code against it, spends a TOTP step
  // or a recovery code (mfa#), spends the token, and mails the owner about a recovery code used.
  login: [
    'dynamodb:BatchGetItem failures#',
    'dynamodb:BatchGetItem mfa#',
    'dynamodb:BatchGetItem migration#',
    'dynamodb:BatchGetItem sessions#',
    'dynamodb:BatchGetItem user#',
    'dynamodb:DeleteItem failures#',
    'dynamodb:DeleteItem mfalogin#',
    'dynamodb:DeleteItem migration#',
    'dynamodb:GetItem mfalogin#',
    'dynamodb:PutItem mfalogin#',
    'dynamodb:PutItem token#',
    'dynamodb:PutItem user#',
    'dynamodb:UpdateItem failures#',
    'dynamodb:UpdateItem mfa#',
    'dynamodb:UpdateItem mfalogin#',
    'dynamodb:UpdateItem migration#',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem ratelimit#',
    'dynamodb:UpdateItem sessions#',
    'dynamodb:UpdateItem user#',
    PEPPER,
    SIGNING_KEY,
    FINGERPRINT_KEY,
    MFA_KEYS,
    ...SEND_MAIL,
  ],
  // The account's TOTP: the access token's sessions item (live, and a recent login), the factors
  // (mfa#) read and changed conditionally, the account's email through the index (the otpauth
  // URI, the mails); attempts at DELETE /mfa/totp counted per account (ratelimit#); TOTP turned
  // on ends the password-only sessions (sessions#) and stores its undo link (token#undo#); public
  // keys verify the token, the MFA keys seal and open secrets.
  mfa: [
    'dynamodb:GetItem mfa#',
    'dynamodb:GetItem sessions#',
    'dynamodb:GetItem user#',
    'dynamodb:PutItem token#',
    'dynamodb:Query index/userId-index',
    'dynamodb:UpdateItem mfa#',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem ratelimit#',
    'dynamodb:UpdateItem sessions#',
    MFA_KEYS,
    ...SEND_MAIL,
  ],
  // The account's passkeys: the access token's sessions item (live, a recent login, with a second
  // factor to remove), the factors (mfa#) read and changed conditionally, the email through the
  // index; a registration's challenge (webauthn#) written and spent, the credential's lookup
  // (passkey#) claimed, and given back on removal; a registration ends the password-only sessions
  // (sessions#) and stores its undo link (token#undo#). Public keys verify the token: no secret at all.
  passkeys: [
    'dynamodb:DeleteItem passkey#',
    'dynamodb:DeleteItem webauthn#',
    'dynamodb:GetItem mfa#',
    'dynamodb:GetItem sessions#',
    'dynamodb:GetItem user#',
    'dynamodb:PutItem passkey#',
    'dynamodb:PutItem token#',
    'dynamodb:PutItem webauthn#',
    'dynamodb:Query index/userId-index',
    'dynamodb:UpdateItem mfa#',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem sessions#',
    ...SEND_MAIL,
  ],
  // A factor's "this wasn't me" link: its item (token#undo#, read, then used by a conditional
  // delete), the factor removed (mfa#, a passkey's lookup passkey#), the password hash locked
  // (user#, compare-and-swap), every session and device ended (sessions#), a reset link (token#reset#)
  // and its mail. No session, token service or secret.
  // DELETE /account: the token's session (recent, with a factor where there is one), the account by
  // its userId (the index), marked disabled, its sessions purged, its factors, passkey lookups and
  // identities (lookups and list) and one-time tokens deleted, the account deleted, the deletion mailed. No pepper, signing or TOTP key.
  account: [
    'dynamodb:DeleteItem identities#',
    'dynamodb:DeleteItem identity#',
    'dynamodb:DeleteItem mfa#',
    'dynamodb:DeleteItem passkey#',
    'dynamodb:DeleteItem token#',
    'dynamodb:DeleteItem user#',
    'dynamodb:GetItem identities#',
    'dynamodb:GetItem mfa#',
    'dynamodb:GetItem sessions#',
    'dynamodb:GetItem user#',
    'dynamodb:Query index/userId-index',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem sessions#',
    'dynamodb:UpdateItem user#',
    FINGERPRINT_KEY,
    ...SEND_MAIL,
  ],
  factorUndo: [
    'dynamodb:DeleteItem passkey#',
    'dynamodb:DeleteItem token#',
    'dynamodb:GetItem mfa#',
    'dynamodb:GetItem sessions#',
    'dynamodb:GetItem token#',
    'dynamodb:GetItem user#',
    'dynamodb:PutItem token#',
    'dynamodb:UpdateItem mfa#',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem sessions#',
    'dynamodb:UpdateItem user#',
    ...SEND_MAIL,
  ],
  // A login without a password: the options' challenge (webauthn#, within the per-source limit),
  // the credential's lookup (passkey#), the login's one read (no migration breaker), the challenge
  // spent, the passkey's counter (mfa#), failure counters, the session; with a verified email
  // required, a new verification token and its mail. No pepper, no fingerprint key (the lookup
  // names the account's key), no MFA keys.
  passkeyLogin: [
    'dynamodb:BatchGetItem failures#',
    'dynamodb:BatchGetItem mfa#',
    'dynamodb:BatchGetItem sessions#',
    'dynamodb:BatchGetItem user#',
    'dynamodb:DeleteItem failures#',
    'dynamodb:DeleteItem webauthn#',
    'dynamodb:GetItem passkey#',
    'dynamodb:PutItem token#',
    'dynamodb:PutItem webauthn#',
    'dynamodb:UpdateItem failures#',
    'dynamodb:UpdateItem mfa#',
    // With sign-in events on too: a login's session.started, in the session's transaction.
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem ratelimit#',
    'dynamodb:UpdateItem sessions#',
    SIGNING_KEY,
    ...SEND_MAIL,
  ],
  // The refresh token's sessions item and the source's failed refreshes (failures#refresh#) in
  // one read; the rotation, or the end of a session on reuse; one failed refresh more.
  token: ['dynamodb:BatchGetItem failures#', 'dynamodb:BatchGetItem sessions#', 'dynamodb:UpdateItem failures#', 'dynamodb:UpdateItem sessions#', SIGNING_KEY],
  // Logout, GET /sessions, DELETE /sessions/{id}: the access token's sessions item, read and
  // (to end sessions) updated; tokens verified with the public keys, so no parameter.
  sessions: ['dynamodb:GetItem sessions#', 'dynamodb:UpdateItem sessions#'],
  // The access token's sessions item (is its session live); token's userId -> account key
  // through the keys-only index; read; attempt counters; compare-and-swap; a new password ends
  // the account's run of failed logins and its other sessions (read, then a purge conditional
  // on the item's epoch) and voids its reset and verification tokens (token#). The access token
  // verified with the public keys: no signing key.
  password: [
    'dynamodb:DeleteItem failures#',
    'dynamodb:DeleteItem token#',
    'dynamodb:GetItem sessions#',
    'dynamodb:GetItem user#',
    'dynamodb:Query index/userId-index',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem ratelimit#',
    'dynamodb:UpdateItem sessions#',
    'dynamodb:UpdateItem user#',
    PEPPER,
    FINGERPRINT_KEY,
  ],
  // Reset request: mail budget and per-source counter, the account, a new token, the mail.
  // Confirm and verify: the token (consistent read), a wrong secret counted against it, used or
  // voided by a conditional delete; the account (the new hash, the verified email); the
  // sessions (purged by a reset, marked verified); a reset clears the run of failed logins and
  // voids the account's other tokens (unconditional deletes).
  // Resend: the access token's userId -> account through the index, a new token and mail; the
  // access token verified with the public keys, so no signing key.
  // Device approval: the mail budget and per-source counter, the account and its sessions item
  // (its epoch), the pending approval (token#device#) put, read, counted against and spent, and
  // the approved device added to the sessions item.
  // Request: the access token's sessions item, the account through the index and its factors, both
  // mail budgets, the new address's item, the link (token#email-change#) and its mail. Confirm: the
  // link read, counted against and used; the switch as one TransactWriteItems (each item its own
  // PutItem, DeleteItem or UpdateItem: the account and factors at the new keys, deleted at the old,
  // the passkeys' lookups), the sessions purged, the old key's links voided, the undo link
  // (token#email-undo#) and its notice. Undo: the link read and used, the switch back, the password
  // locked (user#), a reset link (token#reset#). The fingerprint key; public keys verify the token.
  emailChange: [
    'dynamodb:DeleteItem identities#',
    'dynamodb:DeleteItem mfa#',
    'dynamodb:DeleteItem token#',
    'dynamodb:DeleteItem user#',
    'dynamodb:GetItem identities#',
    'dynamodb:GetItem mfa#',
    'dynamodb:GetItem passkey#',
    'dynamodb:GetItem sessions#',
    'dynamodb:GetItem token#',
    'dynamodb:GetItem user#',
    'dynamodb:PutItem mfa#',
    'dynamodb:PutItem token#',
    'dynamodb:PutItem user#',
    'dynamodb:Query index/userId-index',
    'dynamodb:UpdateItem identities#',
    'dynamodb:UpdateItem identity#',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem passkey#',
    'dynamodb:UpdateItem ratelimit#',
    'dynamodb:UpdateItem sessions#',
    'dynamodb:UpdateItem token#',
    'dynamodb:UpdateItem user#',
    FINGERPRINT_KEY,
    ...SEND_MAIL,
  ],
  recovery: [
    'dynamodb:DeleteItem failures#',
    'dynamodb:DeleteItem token#',
    'dynamodb:GetItem sessions#',
    'dynamodb:GetItem token#',
    'dynamodb:GetItem user#',
    'dynamodb:PutItem token#',
    'dynamodb:Query index/userId-index',
    'dynamodb:UpdateItem mfa#',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem ratelimit#',
    'dynamodb:UpdateItem sessions#',
    'dynamodb:UpdateItem token#',
    'dynamodb:UpdateItem user#',
    PEPPER,
    FINGERPRINT_KEY,
    ...SEND_MAIL,
  ],
  jwks: [],
  openidConfiguration: [],
  // Is the token's session live: one read of its sessions item (tokens verified with the public keys).
  authorizer: ['dynamodb:GetItem sessions#'],
  // Walk accounts, upgrade conditionally (a lost condition hands back the stored item, so no
  // read of accounts); its resumable cursor, job#rehash.
  rehash: ['dynamodb:GetItem job#', 'dynamodb:PutItem job#', 'dynamodb:Scan', 'dynamodb:UpdateItem user#', PEPPER],
  // The operator API: an account by address (its item) or userId (the index), a page of accounts
  // (Scan); its sessions item and factors read to show and before each change; disabled and
  // enabled, every session ended (a purge), a factor removed (conditional updates); a reset link
  // written; a deletion's items (account, factors, passkey lookups, links); the owner's mails.
  admin: [
    'dynamodb:DeleteItem identities#',
    'dynamodb:DeleteItem identity#',
    'dynamodb:DeleteItem mfa#',
    'dynamodb:DeleteItem passkey#',
    'dynamodb:DeleteItem token#',
    'dynamodb:DeleteItem user#',
    'dynamodb:GetItem identities#',
    'dynamodb:GetItem mfa#',
    'dynamodb:GetItem sessions#',
    'dynamodb:GetItem user#',
    'dynamodb:PutItem token#',
    'dynamodb:Query index/userId-index',
    'dynamodb:Scan',
    'dynamodb:UpdateItem mfa#',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem sessions#',
    'dynamodb:UpdateItem user#',
    FINGERPRINT_KEY,
    ...SEND_MAIL,
  ],
  // Account events, rung by the table's stream: each account's outbox claimed (a conditional
  // UpdateItem that returns it), its events taken off the front one by one, the emptied outbox
  // deleted; a refused claim read (GetItem: gone, leased or waiting); each destination's counts
  // and last error (outbox-status#); a refusal's retry state on the outbox, and an event refused
  // on its last attempt kept as a dead letter (outbox-dead#); PutEvents on the configured bus.
  // Reading the stream and sending to the dead-letter queue are Lambda's own calls as the role:
  // the IAM test takes them from the template's event source mapping.
  events: [
    'dynamodb:DeleteItem outbox#',
    'dynamodb:GetItem outbox#',
    'dynamodb:PutItem outbox-dead#',
    'dynamodb:UpdateItem outbox#',
    'dynamodb:UpdateItem outbox-status#',
    'events:PutEvents PASSLANE_EVENT_BUS',
  ],
  // Hashes random passwords in memory. Not driven by the IAM test (minutes of hashing); its role
  // is checked to grant nothing beyond its logs.
  bench: [],
};

/** The IAM actions a function's role grants on the table, SSM and SES (for the packaging test). */
export function actionsOf(name: string): string[] {
  return [...new Set((FUNCTION_ACCESS[name] ?? []).map((line) => line.split(' ')[0]!))].sort();
}

/** The environment variables naming the SSM parameters a function reads. */
export function parameterVariablesOf(name: string): string[] {
  return (FUNCTION_ACCESS[name] ?? []).filter((line) => line.startsWith('ssm:GetParameter ')).map((line) => line.split(' ')[1]!);
}

/** Whether a function sends mail (ses:SendEmail): only those get the mail settings and the permission. */
export function sendsMail(name: string): boolean {
  return (FUNCTION_ACCESS[name] ?? []).some((line) => line.startsWith('ses:SendEmail '));
}
