// `passlane/api`: the HTTP API as one hono app over web-standard Request/Response (README.md here).
export { createApi, respondToError, type ApiEnv } from './create-api.js';
export type { ApiHost, ApiLog, RequestOrigin } from './api-host.js';
export { defineRoute, type Route, type RouteInput } from './route.js';
export { errorResponse, jsonResponse, noContent, toWebResponse, type ApiResponse } from './responses.js';
export { API_ROUTES, changePasswordRoute, jwksRoute, loginRoute, openIdConfigurationRoute, registerRoute } from './routes.js';
export type { ApiServices } from './services.js';
