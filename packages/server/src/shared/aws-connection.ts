/** Where an AWS service is and how to sign for it: all a client needs (DynamoDB, SES, Lambda). */
export interface AwsConnection {
  /** A local or test server (dynalite, DynamoDB Local, a test's SES capture); unset on AWS. */
  endpoint?: string;
  /** Unset: the SDK's own (AWS_REGION on Lambda). */
  region?: string;
  /** Unset: the SDK's default credential chain (the Lambda role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/**
 * The region and, for a local stand-in (dynalite, DynamoDB Local, a test's SES capture), its
 * endpoint and fixed credentials: local servers accept any, but DynamoDB Local keeps a database
 * per access key and region unless -sharedDb, so they must be stable. Without an endpoint the
 * SDK's default chain supplies credentials (the Lambda role) and AWS_REGION the region.
 */
export function connectionSettings({ endpoint, region, credentials }: AwsConnection): Pick<AwsConnection, 'endpoint' | 'region' | 'credentials'> {
  if (endpoint === undefined) return region === undefined ? {} : { region };
  return { endpoint, region: region ?? 'local', credentials: credentials ?? { accessKeyId: 'local', secretAccessKey: 'local' } };
}

/**
 * One client per container and connection. Lambda reuses a container across invocations:
 * reusing the client keeps its keep-alive sockets and resolved credentials, and a client created
 * per request would leak sockets. Different connections (tests against several servers) get
 * different clients.
 */
export function cachedPerConnection<C>(create: (connection: AwsConnection) => C): (connection: AwsConnection) => C {
  const clients = new Map<string, C>();
  return (connection) => {
    const { endpoint, region, credentials } = connection;
    const key = JSON.stringify([endpoint, region, credentials?.accessKeyId, credentials?.sessionToken]);
    let client = clients.get(key);
    if (client === undefined) {
      client = create(connection);
      clients.set(key, client);
    }
    return client;
  };
}
