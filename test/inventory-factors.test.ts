/**
 * `passlane inventory` counts the accounts with each second factor (issue 28): TOTP, passkeys
 * (accounts and passkeys in all), recovery codes left; a pending enrolment or an emptied
 * passkeys map counts as nothing, and no factors item counts as an account. On both real
 * DynamoDB servers, the factors made through the use cases (a software authenticator answering).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { confirmTotp, enrolTotp } from '../packages/server/src/features/mfa/manage-totp.js';
import { passkeyRegistrationOptions, registerPasskey } from '../packages/server/src/features/passkeys/register-passkey.js';
import { register } from '../packages/server/src/features/register/register.js';
import { takeInventory } from '../packages/server/src/features/rehash/take-inventory.js';
import { authenticateSession } from '../packages/server/src/features/sessions/authenticate-session.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { createAuthFixture, sessionToken, uniqueEmail } from './support/auth-fixture.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { softwareAuthenticator } from './support/software-authenticator.js';
import { loginSession } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const ORIGIN = 'https://app.example.com';

describe.each(dynamoDbServers)('inventory of second factors on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function signedIn(deps: AppDependencies) {
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    const { accessToken } = await loginSession(deps, { email, password: PASSWORD, sourceIp: '198.51.100.7' });
    const caller = await authenticateSession(deps, accessToken, new Date());
    return { accessToken, accountKey: caller.accountKey, email, userId: caller.userId };
  }

  it('counts TOTP, passkeys and recovery codes, not a pending enrolment or an emptied passkeys map', async () => {
    const { deps, users, dispose } = await createAuthFixture(server.endpoint, { webauthn: { rpId: 'example.com', origins: [ORIGIN], rpName: 'passlane-test' } });
    const inventory = async () => (await takeInventory({ hasher: deps.hasher, users }, { segments: 2 })).factors;
    // TOTP (with its recovery codes).
    const totp = await signedIn(deps);
    const enrolment = await enrolTotp(deps, { accessToken: totp.accessToken });
    await confirmTotp(deps, { accessToken: totp.accessToken, code: totpCode(base32Bytes(enrolment.secret), Date.now()) });
    // Two passkeys (the first came with recovery codes).
    const owner = await signedIn(deps);
    const authenticator = softwareAuthenticator({ origin: ORIGIN });
    const ids: string[] = [];
    // The second by a session that used the first, as adding a factor to an account with one needs.
    const withPasskey = () => sessionToken(deps, owner, ['hwk', 'user', 'mfa']);
    for (const [name, accessToken] of [['Laptop', async () => owner.accessToken], ['Phone', withPasskey]] as const) {
      const token = await accessToken();
      const options = await passkeyRegistrationOptions(deps, { accessToken: token });
      const response = await authenticator.register(options as PublicKeyCredentialCreationOptionsJSON);
      ids.push((await registerPasskey(deps, { accessToken: token, response, name })).passkey.id);
    }
    // A pending enrolment and a plain account: no factor.
    await enrolTotp(deps, { accessToken: (await signedIn(deps)).accessToken });
    await signedIn(deps);

    expect(await inventory()).toEqual({ totp: 1, passkeyAccounts: 1, passkeys: 2, recoveryCodes: 2 });
    expect((await takeInventory({ hasher: deps.hasher, users })).total).toBe(4);
    expect(await deps.passkeys.remove(owner.accountKey, ids[0]!, false)).toBe(true);
    expect(await inventory()).toEqual({ totp: 1, passkeyAccounts: 1, passkeys: 1, recoveryCodes: 2 });
    // The last passkey takes the recovery codes with it and leaves an empty map.
    expect(await deps.passkeys.remove(owner.accountKey, ids[1]!, true)).toBe(true);
    expect(await inventory()).toEqual({ totp: 1, passkeyAccounts: 0, passkeys: 0, recoveryCodes: 1 });
    dispose();
  });
});
