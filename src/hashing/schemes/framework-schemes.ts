import type { HashScheme } from './types.js';

/** Formats from application frameworks: Werkzeug, ASP.NET Core Identity, Spring Security. */
export const FRAMEWORK_SCHEMES: readonly HashScheme[] = [];
