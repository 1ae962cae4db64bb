/** POST /register: { email, password } -> 201 { userId }. */
import { getAuthDependencies } from '../src/app/create-auth-dependencies.js';
import { createRegisterHandler } from './create-handler.js';

export const handler = createRegisterHandler(getAuthDependencies);
