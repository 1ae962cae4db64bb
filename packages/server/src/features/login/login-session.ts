import { TemporarilyUnavailableError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { UserRecord } from '../../storage/account-store.js';
import type { LoginGuardStore, LoginState, LoginTarget } from '../../storage/login-guard-store.js';
import { SessionsChangedError } from '../../storage/session-store.js';
import type { StartSessionDependencies } from '../sessions/dependencies.js';
import { knownDevice, type KnownDevice } from '../sessions/known-device.js';
import { startSession, type StartedSession, type StartSessionInput } from '../sessions/start-session.js';
import type { LoginDependencies } from './dependencies.js';
import { countedLogin } from './login-guard.js';
import type { LoginClient, LoginResponse } from './login-verdict.js';

/** Session writes lost to another login of the account before the login gives up (each re-reads). */
const MAX_SESSION_ATTEMPTS = 3;

/** A started session's answer: its access token (the session's authentication in it), refresh token and device token. */
export async function answerLogin(
  deps: Pick<LoginDependencies, 'tokens' | 'now'>,
  user: Pick<UserRecord, 'userId' | 'emailVerified'>,
  session: StartedSession,
  claims?: Record<string, unknown>,
): Promise<LoginResponse> {
  const access = await deps.tokens.issue({
    userId: user.userId,
    sessionId: session.sessionId,
    emailVerified: user.emailVerified === true,
    ...session.authentication,
    ...(claims !== undefined && { claims }),
    now: deps.now(),
  });
  return {
    ...access,
    refreshToken: session.refreshToken,
    refreshExpiresIn: session.refreshExpiresIn,
    deviceToken: session.device.token,
    deviceExpiresIn: session.device.expiresIn,
  };
}

/**
 * The login's session, written on the condition that no password change purged the sessions
 * since the read (and that the device it presented was not forgotten meanwhile), with `events`
 * (its sign-in event, when recorded) in the same write. Lost (to that,
 * or to a first login of the account creating the item), it reads again: 'overtaken' when the
 * password changed since the verify, else it retries with what it read.
 */
export async function startLoginSession(
  deps: StartSessionDependencies & Pick<LoginDependencies, 'rateLimits' | 'now'> & { loginGuard: Pick<LoginGuardStore, 'read'> },
  request: LoginClient,
  target: LoginTarget,
  state: LoginState,
  user: UserRecord,
  verifiedHash: string,
  amr?: readonly string[],
  events?: StartSessionInput['events'],
): Promise<(StartedSession & { knownDevice: boolean }) | 'overtaken'> {
  let read = state.sessions;
  for (let attempt = 1; ; attempt++) {
    try {
      const { sourceIp, userAgent } = request;
      const now = deps.now();
      const device: KnownDevice | undefined = knownDevice(read, user.userId, request.deviceTokens, epochSeconds(now));
      const started = await startSession(deps, {
        userId: user.userId,
        emailVerified: user.emailVerified === true,
        accountKey: target.accountKey,
        read,
        sourceIp,
        userAgent,
        ...(device !== undefined && { device }),
        logins: countedLogin(read, deps.rateLimits, epochSeconds(now)),
        ...(amr !== undefined && { amr }),
        // Kept for the token hook's refreshes only while one is set (storage/session-store.ts).
        ...(deps.tokenHook !== undefined && { email: user.email }),
        ...(events !== undefined && { events }),
        now,
      });
      return { ...started, knownDevice: device !== undefined };
    } catch (error) {
      if (!(error instanceof SessionsChangedError)) throw error;
      if (attempt >= MAX_SESSION_ATTEMPTS) throw new TemporarilyUnavailableError(1, { cause: error });
    }
    const fresh = await deps.loginGuard.read({ ...target, now: deps.now() });
    if (fresh.user?.passwordHash !== verifiedHash) return 'overtaken';
    read = fresh.sessions;
  }
}
