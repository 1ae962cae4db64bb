import { deleteDevice, deleteSession } from './end-sessions.js';
import { listSessions } from './list-sessions.js';
import { bearerToken } from '../../api/bearer-token.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse, noContent } from '../../api/responses.js';
import type { SessionServices } from './dependencies.js';

/** GET /sessions with a Bearer token -> 200 { sessions: [...], devices: [...] }, the account's live sessions and known devices. */
export const listSessionsRoute = defineRoute<SessionServices>({
  name: 'sessions',
  method: 'GET',
  path: '/sessions',
  json: false,
  handle: async ({ request, services }) =>
    jsonResponse(200, await listSessions(await services.sessions(), { accessToken: bearerToken(request.headers.get('authorization') ?? undefined) })),
});

/** DELETE /sessions/{id} with a Bearer token -> 204; `session_not_found` for an id that is not a live session of the account. */
export const deleteSessionRoute = defineRoute<SessionServices>({
  name: 'session',
  method: 'DELETE',
  path: '/sessions/:id',
  json: false,
  handle: async ({ request, params, services }) => {
    await deleteSession(await services.sessions(), { accessToken: bearerToken(request.headers.get('authorization') ?? undefined), id: params.id ?? '' });
    return noContent();
  },
});

/** DELETE /devices/{id} with a Bearer token -> 204; `device_not_found` for an id that is not a known device of the account. */
export const deleteDeviceRoute = defineRoute<SessionServices>({
  name: 'device',
  method: 'DELETE',
  path: '/devices/:id',
  json: false,
  handle: async ({ request, params, services }) => {
    await deleteDevice(await services.sessions(), { accessToken: bearerToken(request.headers.get('authorization') ?? undefined), id: params.id ?? '' });
    return noContent();
  },
});
