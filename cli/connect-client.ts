import { Connection, isGrpcServiceError } from '@temporalio/client';
import { TurnClient } from '../client';
import { toConnectionOptions } from '../devserver';
import { probeHttp2 } from '../devserver/probe-http2';
import { checkEncryptionKeys } from './check-encryption-keys';
import { CliError } from './cli-error';
import type { ConnectionSettings } from './connection-settings';
import { reasonOf } from './reason-of';

export interface ConnectedClient {
  client: TurnClient;
  address: string;
  namespace: string;
  taskQueue: string;
  close(): Promise<void>;
}

/**
 * A turn client on a server that answered within `timeoutMs`: a wrong or dead address fails in
 * seconds, naming the address and where it came from, instead of hanging on gRPC's retries.
 */
export async function connectClient({
  settings,
  timeoutMs = 5_000,
}: {
  settings: ConnectionSettings;
  timeoutMs?: number;
}): Promise<ConnectedClient> {
  checkEncryptionKeys();
  const { config, origin } = settings;
  const unreachable = (reason: string, cause?: unknown) =>
    new CliError(
      `cannot reach Temporal at ${config.address} (${origin}): ${reason}. ` +
        'Start a server there (`durable-turns dev` runs one), or point --address / TEMPORAL_ADDRESS at a running one.',
      { cause },
    );
  const options = await toConnectionOptions(config).catch((error: unknown) => {
    throw new CliError(error instanceof Error ? error.message : String(error), { cause: error });
  });
  const deadline = Date.now() + timeoutMs;
  const tls = options.tls ?? (options.apiKey === undefined ? undefined : true);
  // Our own socket first: a peer that never speaks HTTP/2 would keep gRPC's socket (and us) alive.
  const noAnswer = await probeHttp2({ address: config.address, tls, timeoutMs });
  if (noAnswer !== undefined) throw unreachable(noAnswer);
  const connection = Connection.lazy({ ...options, connectTimeout: Math.max(1_000, deadline - Date.now()) });
  try {
    await connection.ensureConnected();
    // A Temporal server answers this; a proxy or another gRPC service on the port does not.
    await connection.withDeadline(Date.now() + Math.max(1_000, deadline - Date.now()), () =>
      connection.workflowService.describeNamespace({ namespace: config.namespace }),
    );
  } catch (error) {
    await connection.close();
    if (isGrpcServiceError(error) && error.code === 5)
      throw new CliError(
        `namespace ${config.namespace} does not exist on the Temporal server at ${config.address}; pick one with --namespace (or TEMPORAL_NAMESPACE)`,
        { cause: error },
      );
    throw unreachable(reasonOf({ error }), error);
  }
  return {
    client: new TurnClient({ connection, namespace: config.namespace, taskQueue: config.taskQueue }),
    address: config.address,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    close: () => connection.close(),
  };
}
