/**
 * A setting is missing or makes no sense. `variable` names it and the message says what is
 * allowed, never the value when the variable holds a secret (keys, credentials).
 */
export class ConfigError extends Error {
  readonly code = 'ERR_CONFIG';

  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable} ${message}`);
    this.name = 'ConfigError';
  }
}
