// `@passlane/server/runtimes/node`: the long-lived Node server over the API, and the Node platform
// the wiring builds services with (native argon2, the SDK's credentials, Powertools logs).
export { serveOnNode, type NodeHost } from './node-server.js';
export { nodeBulkPlatform, nodePlatform, nodePlatformWithoutBlocklist } from './node-platform.js';
export { startHostEventDelivery, type HostEventDelivery } from '../host-event-delivery.js';
