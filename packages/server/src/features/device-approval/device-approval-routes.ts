import { approveDevice } from './approve-device.js';
import type { DeviceApprovalServices } from './dependencies.js';
import { DeviceApprovalAsked, DeviceApprovalConfirmation, DeviceApprovalRequest, DeviceApproved } from './device-approval-schemas.js';
import { requestDeviceApproval } from './request-device-approval.js';
import { ACCEPTED } from '../recovery/recovery-routes.js';
import { deviceCookie } from '../login/device-cookie.js';
import { BAD_EMAIL_REQUEST, NO_STORE, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';
import { hostCookie, presentedSecrets } from '../../api/host-cookies.js';
import { parseOneTimeToken } from '../recovery/one-time-token.js';
import { MAX_PRESENTED_CLIENT_SECRETS } from './client-secret.js';

/** POST /devices/approval `{ email }` -> 202 with a client secret (and its cookie), whether or not the account exists. */
export const requestDeviceApprovalRoute = defineRoute<DeviceApprovalServices, typeof DeviceApprovalRequest>({
  name: 'device-approval',
  method: 'POST',
  path: '/devices/approval',
  body: { name: 'DeviceApprovalRequest', schema: DeviceApprovalRequest },
  doc: {
    operationId: 'requestDeviceApproval',
    summary: 'Mail a link that makes this client a known device of an account',
    description: `For a client without a device token when a login answers 429 (an email over its
account-wide ceiling of failures: packages/server/src/features/login/LIMITS.md, "Known
devices"). The same answer, 202 with a fresh \`clientSecret\` (and its
\`__Host-passlane-approval-<account>\` cookie), in the same time, for every well-formed email:
an account's, an unknown one, or one over its limits (3 mails per account per hour,
PASSLANE_DEVICE_APPROVAL_MAILS_PER_HOUR, and the per-source limit). For an account within
them the link \`<PASSLANE_APP_URL>/approve-device#token=<token>\` is mailed; it works for
PASSLANE_DEVICE_APPROVAL_TTL_S (15 minutes), once, and only beside this client's secret
(\`POST /devices/approval/confirm\`).
`,
    security: 'none',
    answers: {
      202: {
        description: 'Accepted, whether or not an account has this email.',
        headers: {
          'Cache-Control': NO_STORE,
          'Set-Cookie': {
            description: '`__Host-passlane-approval-<account>=<clientSecret>; Max-Age=<expiresIn>; Path=/; HttpOnly; Secure; SameSite=Strict`',
            schema: { type: 'string' },
          },
        },
        body: { name: 'DeviceApprovalAsked', schema: DeviceApprovalAsked },
      },
      400: BAD_EMAIL_REQUEST,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, origin, services }) => {
    const asked = await requestDeviceApproval(await services.deviceApproval(), { email: body.email, sourceIp: origin.sourceIp });
    const cookie = approvalCookie(asked.clientSecret, asked.expiresIn);
    return jsonResponse(202, { ...ACCEPTED, ...asked }, cookie === undefined ? {} : { 'set-cookie': cookie });
  },
});

/** POST /devices/approval/confirm `{ token, clientSecret? }` (+ the approval cookie) -> 200 `{ deviceToken, deviceExpiresIn }`; `invalid_token`. */
export const confirmDeviceApprovalRoute = defineRoute<DeviceApprovalServices, typeof DeviceApprovalConfirmation>({
  name: 'device-approval-confirm',
  method: 'POST',
  path: '/devices/approval/confirm',
  body: { name: 'DeviceApprovalConfirmation', schema: DeviceApprovalConfirmation },
  doc: {
    operationId: 'confirmDeviceApproval',
    summary: 'Make the client that asked a known device, with the token of the approval link',
    description: `The link's token and the asking client's secret (its cookie, or \`clientSecret\`)
together make this client a known device of the account, as a good login does: the answer
carries its device token (and the device cookie for browsers), and its next logins are
counted per device, not held to the account-wide ceiling. Single use (of two racing
confirms one succeeds). Nobody is signed in: the next \`POST /login\` still needs the password.
`,
    security: 'none',
    parameters: [
      {
        name: 'Cookie',
        in: 'header',
        required: false,
        description: 'Browsers: the `__Host-passlane-approval-<account>` cookie `POST /devices/approval` set.',
        schema: { type: 'string' },
      },
    ],
    answers: {
      200: {
        description: 'This client is a known device of the account.',
        headers: {
          'Cache-Control': NO_STORE,
          'Set-Cookie': {
            description: '`__Host-passlane-device-<account>=<deviceToken>; Max-Age=<deviceExpiresIn>; Path=/; HttpOnly; Secure; SameSite=Strict`',
            schema: { type: 'string' },
          },
        },
        body: { name: 'DeviceApproved', schema: DeviceApproved },
      },
      400: {
        description: `\`invalid_token\`: the token is missing, malformed, unknown, already used or expired, the
asking client's secret is not presented with it (the link opened on another device: after
5 such tries the link is voided), or the password changed since it was asked for; ask
again. \`invalid_request\`: the body is not an object. \`invalid_json\`: the body is not
valid UTF-8 JSON.
`,
        codes: ['invalid_token', 'invalid_request', 'invalid_json'],
      },
      409: { description: 'The account\'s sessions changed concurrently several times over; ask again (`conflict`).', codes: ['conflict'] },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ request, body, origin, services }) => {
    const approved = await approveDevice(await services.deviceApproval(), {
      token: body.token,
      clientSecrets: presentedClientSecrets(request, body.clientSecret),
      sourceIp: origin.sourceIp,
      userAgent: request.headers.get('user-agent') ?? undefined,
    });
    const cookie = deviceCookie(approved.deviceToken, approved.deviceExpiresIn);
    return jsonResponse(200, approved, cookie === undefined ? {} : { 'set-cookie': cookie });
  },
});

/**
 * The asking client's secret as HTTP carries it: a browser keeps it in a `__Host-` cookie per
 * account (HttpOnly, Secure, SameSite=Strict, as the device cookie: no script reads it, no other
 * site sends it, no sibling host sets it), so the approval page posts the link's token and the
 * browser adds the secret by itself; other clients send the answer's `clientSecret` back in the
 * body. The use case is given both and picks the one of the account.
 */
const APPROVAL_COOKIE_PREFIX = '__Host-passlane-approval-';

function presentedClientSecrets(request: Request, field: unknown): string[] {
  return presentedSecrets(request, field, APPROVAL_COOKIE_PREFIX, MAX_PRESENTED_CLIENT_SECRETS);
}

/** The Set-Cookie value keeping the client secret for as long as the approval can be used. */
function approvalCookie(clientSecret: string, maxAgeSeconds: number): string | undefined {
  const parsed = parseOneTimeToken(clientSecret);
  return parsed === undefined ? undefined : hostCookie(`${APPROVAL_COOKIE_PREFIX}${parsed.accountKey}`, clientSecret, maxAgeSeconds);
}
