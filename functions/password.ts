/** POST /password with a Bearer token: { currentPassword, newPassword } -> 204. */
import { getAuthDependencies } from '../src/app/create-auth-dependencies.js';
import { createPasswordHandler } from './create-handler.js';

export const handler = createPasswordHandler(getAuthDependencies);
