/** POST /register: { email, password } -> 201 { userId }. Loads no signing key: it issues no token. */
import { getRegisterDependencies } from '../src/app/create-auth-dependencies.js';
import { createRegisterHandler } from './create-handler.js';

export const handler = createRegisterHandler(getRegisterDependencies);
