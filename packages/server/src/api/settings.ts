/**
 * Which browser pages may call the API from another origin (CORS; README.md here, "CORS"). Read
 * from PASSLANE_CORS_ORIGINS by config/cors-config.ts; each host hands it to createApi.
 */
export interface CorsConfig {
  /**
   * Origins (`https://app.example.com`, `http://localhost:5173`: scheme, host and port, as a
   * browser's Origin header says them) whose pages may call every route, with credentials. No
   * wildcard: a listed origin is trusted with the user's session. Empty: no other origin may,
   * except on the routes marked `cors: 'any-origin'` (the public keys and discovery).
   */
  allowedOrigins: readonly string[];
}

export const DEFAULT_CORS_CONFIG: CorsConfig = { allowedOrigins: [] };
