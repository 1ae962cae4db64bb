/**
 * The routes' body schemas as the API answers them (api/request-body.ts parseBody): the first
 * field refused, in the order the use cases checked them when they read bodies themselves, with
 * the same message and `field` (a missing field answers as its schema answers no value), the
 * domain's rules in their place (a canonical email), and the grant type's own error.
 */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError, UnsupportedGrantTypeError } from '../packages/server/src/accounts/errors.js';
import { NOT_AN_OBJECT, parseBody, type BodySchema } from '../packages/server/src/api/request-body.js';
import { LoginRequest } from '../packages/server/src/features/login/login-schemas.js';
import { PasswordChange } from '../packages/server/src/features/password/password-schemas.js';
import { EmailVerification, PasswordResetConfirmation, PasswordResetRequest } from '../packages/server/src/features/recovery/recovery-schemas.js';
import { Credentials } from '../packages/server/src/features/register/register-schemas.js';
import { TokenRequest } from '../packages/server/src/features/sessions/session-schemas.js';

/** What parseBody throws for `body`, as the answer's message and field. */
function refusal(schema: BodySchema, body: unknown): { message: string; field?: string } {
  try {
    parseBody(schema, body);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    const { message, field } = error as InvalidRequestError;
    return { message, ...(field !== undefined && { field }) };
  }
  throw new Error('the body was taken');
}

const EMAIL = 'ada@example.com';

describe('every body schema', () => {
  it.each([
    ['register', Credentials],
    ['login', LoginRequest],
    ['token', TokenRequest],
    ['password', PasswordChange],
    ['password reset', PasswordResetRequest],
    ['password reset confirm', PasswordResetConfirmation],
    ['email verify', EmailVerification],
  ] as const)('%s refuses a body that is not a JSON object, as a whole', (_name, schema) => {
    for (const body of [[], null, 'hello', 42, true]) expect(refusal(schema, body)).toEqual({ message: NOT_AN_OBJECT });
  });
});

describe.each([
  ['register', Credentials],
  ['login', LoginRequest],
] as const)('%s', (_name, schema) => {
  it('checks the email first, its canonical form before the password', () => {
    expect(refusal(schema, {})).toEqual({ message: 'email must be a string', field: 'email' });
    expect(refusal(schema, { email: 42, password: 42 })).toEqual({ message: 'email must be a string', field: 'email' });
    expect(refusal(schema, { email: 'nope' })).toEqual({ message: 'email is not a valid address', field: 'email' });
    expect(refusal(schema, { email: 'a\u200b@example.com', password: ['x'] })).toEqual({
      message: 'email contains an invisible, control or unassigned character',
      field: 'email',
    });
    expect(refusal(schema, { email: EMAIL })).toEqual({ message: 'password must be a string', field: 'password' });
    expect(refusal(schema, { email: EMAIL, password: ['x'] })).toEqual({ message: 'password must be a string', field: 'password' });
  });

  it('hands the email as typed (the use case takes its canonical form) and the password', () => {
    expect(parseBody(schema, { email: `  ${EMAIL.toUpperCase()} `, password: 'p' })).toMatchObject({ email: `  ${EMAIL.toUpperCase()} `, password: 'p' });
  });
});

describe('login', () => {
  it('takes any deviceToken and refuses nothing for it: only a string is a device token', () => {
    for (const deviceToken of ['a.b.c', 42, null, ['a.b.c']]) {
      expect(parseBody(LoginRequest, { email: EMAIL, password: 'p', deviceToken })).toEqual({ email: EMAIL, password: 'p', deviceToken });
    }
  });
});

describe('token', () => {
  it('wants a grant type, then the refresh grant, then a refresh token', () => {
    expect(refusal(TokenRequest, {})).toEqual({ message: 'grant_type is required', field: 'grant_type' });
    expect(refusal(TokenRequest, { refresh_token: 'x' })).toEqual({ message: 'grant_type is required', field: 'grant_type' });
    for (const grantType of ['password', 42, null]) {
      expect(() => parseBody(TokenRequest, { grant_type: grantType })).toThrow(UnsupportedGrantTypeError);
    }
    for (const body of [{ grant_type: 'refresh_token' }, { grant_type: 'refresh_token', refresh_token: '' }, { grant_type: 'refresh_token', refresh_token: 7 }]) {
      expect(refusal(TokenRequest, body)).toEqual({ message: 'refresh_token must be a non-empty string', field: 'refresh_token' });
    }
    expect(parseBody(TokenRequest, { grant_type: 'refresh_token', refresh_token: 'r', resource: 'x' })).toEqual({ grant_type: 'refresh_token', refresh_token: 'r' });
    // What OAuth clients send beside it: a public client's client_id, a scope; taken as strings, neither changes the grant.
    expect(parseBody(TokenRequest, { grant_type: 'refresh_token', refresh_token: 'r', client_id: 'passlane', scope: 'x' })).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'r',
      client_id: 'passlane',
      scope: 'x',
    });
    expect(refusal(TokenRequest, { grant_type: 'refresh_token', refresh_token: 'r', client_id: 7 })).toEqual({ message: 'client_id must be a string', field: 'client_id' });
  });
});

describe('password change', () => {
  it('wants the current password, then the new one', () => {
    expect(refusal(PasswordChange, {})).toEqual({ message: 'currentPassword must be a string', field: 'currentPassword' });
    expect(refusal(PasswordChange, { currentPassword: 'a', newPassword: 1 })).toEqual({ message: 'newPassword must be a string', field: 'newPassword' });
  });
});

describe('recovery', () => {
  it('a reset request wants an address', () => {
    expect(refusal(PasswordResetRequest, {})).toEqual({ message: 'email must be a string', field: 'email' });
    expect(refusal(PasswordResetRequest, { email: 'a b@example.com' })).toEqual({ message: 'email is not a valid address', field: 'email' });
  });

  it('a link token that is no string is no token (the use case answers invalid_token), and the new password is checked first', () => {
    expect(refusal(PasswordResetConfirmation, { token: 42 })).toEqual({ message: 'newPassword must be a string', field: 'newPassword' });
    expect(parseBody(PasswordResetConfirmation, { token: 42, newPassword: 'n' })).toEqual({ token: '', newPassword: 'n' });
    expect(parseBody(EmailVerification, {})).toEqual({ token: '' });
    expect(parseBody(EmailVerification, { token: 'a.b' })).toEqual({ token: 'a.b' });
  });
});
