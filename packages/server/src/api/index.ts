// `@passlane/server/api`: the HTTP toolkit, one hono app over web-standard Request/Response
// (README.md here). It knows no feature: the API's routes are the wiring's (API_ROUTES).
export { createApi, respondToError, type ApiEnv } from './create-api.js';
export type { ApiHost, ApiLog, RequestOrigin } from './api-host.js';
export { DEFAULT_CORS_CONFIG, type CorsConfig } from './settings.js';
export { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_S, type CorsMode } from './cors.js';
export { defineRoute, type AnyRoute, type Route, type RouteBody, type RouteInput } from './route.js';
export { parseBody, NOT_AN_OBJECT, type BodyOf, type BodySchema } from './request-body.js';
export type { AnswerDoc, HeaderDoc, NamedSchema, OperationDoc, ParameterDoc, PlainSchema } from './operation-doc.js';
export * from './answers.js';
export { errorResponse, jsonResponse, noContent, oauthErrorResponse, TOKEN_ENDPOINT_HEADERS, toWebResponse, type ApiResponse } from './responses.js';
export type { ErrorBodyName, OAuthErrorCode } from './error-table.js';
