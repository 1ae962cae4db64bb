import * as v from 'valibot';
import { stringField } from '../../accounts/request-fields.js';

/** POST /password's body. */
export const PasswordChange = v.object({
  currentPassword: stringField('currentPassword'),
  newPassword: stringField('newPassword'),
});
