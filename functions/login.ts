/** POST /login: { email, password } -> 200 { accessToken, tokenType, expiresIn }. */
import { getAuthDependencies } from '../src/app/create-auth-dependencies.js';
import { createLoginHandler } from './create-handler.js';

export const handler = createLoginHandler(getAuthDependencies);
