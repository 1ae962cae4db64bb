/** Types of offline-environment.mjs (an osls plugin, plain JavaScript so osls can load it): for its tests. */
export interface OfflineService {
  provider: { environment?: Record<string, unknown>; httpApi?: { authorizers?: Record<string, { issuerUrl?: unknown }> } };
  functions?: Record<string, { environment?: Record<string, unknown> }>;
  resources?: { Conditions?: Record<string, unknown> };
}

export default class OfflineEnvironment {
  constructor(
    serverless: { service: OfflineService; classes: { Error: new (message: string) => Error } },
    options: unknown,
    utils: unknown,
    localEnv?: Readonly<Record<string, string | undefined>>,
  );
  readonly hooks: Record<string, () => void>;
  /** Rewrites every function's environment in place, or throws naming each value it cannot give. */
  prepare(): void;
}
