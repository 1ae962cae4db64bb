/**
 * POST /password/reset, /password/reset/confirm, /email/verify and /email/verify/resend: the
 * routes that send or use one-time links (packages/server/src/features/recovery/README.md), and
 * POST /devices/approval and /devices/approval/confirm, the device approval's mailed link
 * (packages/server/src/features/device-approval/README.md). One function: the same needs (the
 * fingerprint key, one-time items, the sessions item, the mail sender; the hasher for a new password).
 */
import { confirmDeviceApprovalRoute, requestDeviceApprovalRoute } from '../packages/server/src/features/device-approval/device-approval-routes.js';
import { confirmPasswordResetRoute, requestPasswordResetRoute, resendVerificationRoute, verifyEmailRoute } from '../packages/server/src/features/recovery/recovery-routes.js';
import type { DeviceApprovalServices } from '../packages/server/src/features/device-approval/dependencies.js';
import type { RecoveryServices } from '../packages/server/src/features/recovery/dependencies.js';
import type { CallerServices } from '../packages/server/src/features/sessions/caller-services.js';
import type { AnyRoute } from '../packages/server/src/api/route.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { nodePlatform } from '../packages/server/src/runtimes/node/node-platform.js';
import { authenticatorOver } from '../packages/server/src/wiring/api-services.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { buildRecoveryDependencies } from '../packages/server/src/wiring/build-dependencies.js';

const dependencies = onceUntilFailure(async () => buildRecoveryDependencies(await configWithSecrets(), { ...nodePlatform, dynamoDb: createLambdaDynamoDbClient }));

export const handler = lambdaHandler<RecoveryServices & DeviceApprovalServices & CallerServices>(
  [requestPasswordResetRoute, confirmPasswordResetRoute, verifyEmailRoute, resendVerificationRoute, requestDeviceApprovalRoute, confirmDeviceApprovalRoute] as AnyRoute<
    RecoveryServices & DeviceApprovalServices & CallerServices
  >[],
  { recovery: dependencies, deviceApproval: dependencies, authenticator: authenticatorOver(dependencies) },
);
