/** Types of offline-set-cookie.mjs (an osls plugin, plain JavaScript so osls can load it): for its tests. */
export function passSetCookieThrough(Definitions: { prototype: { format: unknown } }): void;

export default class OfflineSetCookie {
  constructor(serverless: { config: { serverlessPath: string } });
  readonly hooks: Record<string, () => void>;
}
