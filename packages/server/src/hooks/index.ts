// The hooks floor (README.md here): calling a deployment's own code, over HTTPS or Lambda, when
// a token is minted or an account is about to be created. Imports only src/shared and libraries.
export { HookConfigError, HookUnavailableError, type HookFailureReason } from './errors.js';
export type { HookCaller, HookEvent } from './hook-caller.js';
export { createHttpsHook, type HttpsHookOptions } from './https-hook.js';
export { createLambdaHook, type LambdaInvoker, type LambdaInvokeResult } from './lambda-hook.js';
export { createTokenHook, MAX_HOOK_CLAIMS_BYTES, RESERVED_CLAIMS, type TokenHook, type TokenHookQuestion } from './token-hook.js';
export { createSignupHook, SIGNUP_REFUSAL_CODE, type SignupHook, type SignupMethod, type SignupQuestion, type SignupVerdict } from './signup-hook.js';
export * from './settings.js';
