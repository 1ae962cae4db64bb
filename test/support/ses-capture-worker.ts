/**
 * A Worker that sends one password-reset mail through SES the way the edge wiring does
 * (createAccountMail with packages/server/src/runtimes/workers/ses-client.ts's client): bundled like the real Worker and run in
 * workerd by test/mail-edge.test.ts, against the SES capture endpoint.
 */
import { createWorkerSesClient } from '../../packages/server/src/runtimes/workers/ses-client.js';
import { stringBindings, type WorkerEnv } from '../../packages/server/src/runtimes/workers/worker-env.js';
import { readMailConfig } from '../../packages/server/src/config/mail-config.js';
import { createAccountMail } from '../../packages/server/src/mail/account-mail.js';

export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    const mail = createAccountMail(readMailConfig(stringBindings(env)), { sesClient: createWorkerSesClient });
    try {
      await mail.passwordReset(new URL(request.url).searchParams.get('to') ?? '', 'tok-edge', 3600);
      return new Response('sent');
    } catch (error) {
      const { name, code, reason } = error as { name: string; code?: string; reason?: string };
      return Response.json({ name, code, reason }, { status: 500 });
    }
  },
};
