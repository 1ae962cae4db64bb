import { deleteDevice, deleteSession } from './end-sessions.js';
import type { AuthenticatedSession } from './authenticate-session.js';
import type { SessionServices } from './dependencies.js';
import type { CallerServices } from './caller-services.js';
import { listSessions } from './list-sessions.js';
import { SESSION_INSUFFICIENT_SCOPE, SESSION_LIST_BODY, SESSION_UNAUTHENTICATED } from './session-schemas.js';
import { NO_STORE, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse, noContent } from '../../api/responses.js';

/** GET /sessions with a Bearer token -> 200 { sessions: [...], devices: [...] }, the account's live sessions and known devices. */
export const listSessionsRoute = defineRoute<SessionServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'sessions',
  method: 'GET',
  path: '/sessions',
  authenticate: 'session',
  doc: {
    operationId: 'listSessions',
    summary: "The account's live sessions and known devices",
    answers: {
      200: { description: "Newest first; the caller's own is `current`.", headers: { 'Cache-Control': NO_STORE }, body: SESSION_LIST_BODY },
      401: SESSION_UNAUTHENTICATED,
      403: SESSION_INSUFFICIENT_SCOPE,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, services }) => jsonResponse(200, await listSessions(await services.sessions(), { caller })),
});

/** DELETE /sessions/{id} with a Bearer token -> 204; `session_not_found` for an id that is not a live session of the account. */
export const deleteSessionRoute = defineRoute<SessionServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'session',
  method: 'DELETE',
  path: '/sessions/:id',
  authenticate: 'session',
  doc: {
    operationId: 'deleteSession',
    summary: "End one of the account's sessions",
    description: "Any live session of the caller's account, its own too (then the token stops working, as on logout).",
    parameters: [{ name: 'id', in: 'path', required: true, description: "A session's `id` from `GET /sessions` (the `sid` of its access tokens).", schema: { type: 'string' } }],
    answers: {
      204: { description: 'Ended.', headers: { 'Cache-Control': NO_STORE } },
      401: SESSION_UNAUTHENTICATED,
      403: SESSION_INSUFFICIENT_SCOPE,
      404: {
        description: "No live session of the caller's account has this id (`session_not_found`); another account's session and an ended one look the same.",
        codes: ['session_not_found'],
      },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, params, services }) => {
    await deleteSession(await services.sessions(), { caller, id: params.id ?? '' });
    return noContent();
  },
});

/** DELETE /devices/{id} with a Bearer token -> 204; `device_not_found` for an id that is not a known device of the account. */
export const deleteDeviceRoute = defineRoute<SessionServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'device',
  method: 'DELETE',
  path: '/devices/:id',
  authenticate: 'session',
  doc: {
    operationId: 'deleteDevice',
    summary: "Forget one of the account's known devices",
    description:
      "Its next login is held to the account's and its source's limits like any new client's, and makes it a new device. Its sessions go on (end them with `DELETE /sessions/{id}`).",
    parameters: [{ name: 'id', in: 'path', required: true, description: "A device's `id` from `GET /sessions`.", schema: { type: 'string' } }],
    answers: {
      204: { description: 'Forgotten.', headers: { 'Cache-Control': NO_STORE } },
      401: SESSION_UNAUTHENTICATED,
      403: SESSION_INSUFFICIENT_SCOPE,
      404: { description: "No known device of the caller's account has this id (`device_not_found`).", codes: ['device_not_found'] },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, params, services }) => {
    await deleteDevice(await services.sessions(), { caller, id: params.id ?? '' });
    return noContent();
  },
});
