import type { AwsConnection } from '../shared/aws-connection.js';

/**
 * The hooks a deployment may set (README.md here): where each is asked and how long it may take.
 * Both are off unless configured (config/hooks-config.ts reads them from the environment).
 */
export interface HooksConfig {
  /** Asked for extra access-token claims whenever a session's token is minted (login, refresh). */
  token?: TokenHookConfig;
  /** Asked before an account is created (registration, a first federated sign-in, lazy migration). */
  signup?: HookConfig;
}

export interface HookConfig {
  target: HookTarget;
  /** The whole call: connection, request and the answer's last byte. */
  timeoutMs: number;
}

export interface TokenHookConfig extends HookConfig {
  /** What a failed hook does to the login or refresh: `refuse` it (503), or mint the token `without_claims`. */
  onFailure: TokenHookFailurePolicy;
}

export type TokenHookFailurePolicy = 'refuse' | 'without_claims';

export type HookTarget = UrlHookTarget | FunctionHookTarget;

/** An HTTPS endpoint, each request signed per Standard Webhooks with every secret (rotation). */
export interface UrlHookTarget {
  kind: 'url';
  /** https; plain http only to a loopback host (a local receiver). */
  url: string;
  /** Standard Webhooks secrets (`whsec_` and base64); one signature each, the newest first. */
  secrets: readonly string[];
}

/** A Lambda function invoked synchronously; IAM signs it (the caller's role needs lambda:InvokeFunction). */
export interface FunctionHookTarget {
  kind: 'function';
  /** A name, `account:function:name` or an ARN, with an optional `:qualifier`. */
  functionName: string;
  connection: AwsConnection;
}

/** Short: a login or refresh waits on it. */
export const DEFAULT_HOOK_TIMEOUT_MS = 2_000;
export const MIN_HOOK_TIMEOUT_MS = 100;
export const MAX_HOOK_TIMEOUT_MS = 10_000;
