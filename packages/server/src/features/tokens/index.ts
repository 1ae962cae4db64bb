// `@passlane/server/tokens`: JWT access tokens and the JWKS, on jose (README.md here).
export * from './errors.js';
export * from './token-service.js';
export { createKeyring, generateSigningKey, type Keyring, type PublicJwk, type PublicKeyring, type SigningAlgorithm } from './keys.js';
export { publicJwks, type PublicJwks } from './jwks.js';
export { authorizationServerMetadata, type AuthorizationServerMetadata, type DiscoverySettings } from './authorization-server-metadata.js';
export { openIdConfiguration, type OpenIdConfiguration } from './openid-configuration.js';
export * from './settings.js';
