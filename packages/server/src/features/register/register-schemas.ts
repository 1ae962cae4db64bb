import * as v from 'valibot';
import { emailField, passwordField } from '../../accounts/request-fields.js';

/** POST /register's body. */
export const Credentials = v.object({
  email: emailField,
  password: passwordField,
});

/** A new account's id (201). */
export const Registered = v.object({
  userId: v.string(),
});
