/**
 * Account events on AWS (no HTTP route): the table's stream, keys only and filtered to `outbox#`
 * keys by the event source mapping, invokes it with the accounts whose outbox was written; each
 * account's events go, in order, to the EventBridge bus PASSLANE_EVENT_BUS names and to the
 * webhooks of PASSLANE_WEBHOOKS (an SSM parameter's JSON: URLs and signing secrets). What is not
 * delivered is retried, then described in the dead-letter queue (infra/README.md, "Account events").
 */
import { readEventDeliveryConfig } from '../packages/server/src/config/event-delivery-config.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { readStorageConfig } from '../packages/server/src/config/storage-config.js';
import { deliverAccountEvents } from '../packages/server/src/features/events/deliver-account-events.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { sdkEventBusClient } from '../packages/server/src/runtimes/lambda/eventbridge-client.js';
import { lambdaEventsStreamHandler } from '../packages/server/src/runtimes/lambda/events-stream-handler.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { secretEnv } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { buildEventDelivery } from '../packages/server/src/wiring/build-event-delivery.js';

// Built on the first invocation (the webhooks from SSM when a parameter is named) and kept for the container's life.
const delivery = onceUntilFailure(async () => {
  const env = await secretEnv();
  const settings = readEventDeliveryConfig(env);
  // Events recorded with nowhere to go would leave their outboxes only by being dropped: fail
  // instead (the Errors alarm), and the events wait in their outboxes.
  if (settings === undefined) throw new ConfigError('PASSLANE_EVENT_BUS', 'and PASSLANE_WEBHOOKS are both unset: the events function has nowhere to deliver account events');
  const log = { info: (message: string, fields: Record<string, unknown> = {}) => logger.info(message, fields), warn: (message: string, fields: Record<string, unknown> = {}) => logger.warn(message, fields) };
  const deps = buildEventDelivery(settings, readStorageConfig(env), { dynamoDb: createLambdaDynamoDbClient, warn: log.warn }, { eventBus: sdkEventBusClient(), log });
  return (accountId: string) => deliverAccountEvents(deps, accountId);
});

export const handler = lambdaEventsStreamHandler(delivery);
