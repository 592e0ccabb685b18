import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { probeHttp2 } from './probe-http2';

const pollIntervalMs = 100;
const attemptTimeoutMs = 2_000;

/**
 * Polls a starting Temporal server until it serves `describeNamespace(namespace)`, and returns the
 * open connection (the caller closes it). Returns `undefined` when `signal` aborts (the process
 * died; the caller reports that) or when `deadline` passes.
 *
 * Each round first checks for an HTTP/2 handshake: a gRPC connect to a closed port sits in
 * reconnect back-off for a second or more (doubling the start time of a server that is up in
 * ~1 s), and one to a port some other program holds would leave a socket open (see probeHttp2).
 */
export async function waitUntilReady({
  address,
  namespace,
  deadline,
  signal,
}: {
  address: string;
  namespace: string;
  deadline: number;
  signal: AbortSignal;
}): Promise<Connection | undefined> {
  while (!signal.aborted && Date.now() < deadline) {
    const timeout = Math.max(1, Math.min(attemptTimeoutMs, deadline - Date.now()));
    if ((await probeHttp2({ address, tls: undefined, timeoutMs: timeout })) !== undefined) {
      await sleep(pollIntervalMs);
      continue;
    }
    // `lazy` + `ensureConnected` rather than `connect`: a failed `connect` leaves its gRPC channel
    // behind with nothing to close it.
    const connection = Connection.lazy({ address, connectTimeout: timeout });
    try {
      await connection.ensureConnected();
      await connection.withDeadline(Date.now() + timeout, () =>
        connection.workflowService.describeNamespace({ namespace }),
      );
      return connection;
    } catch {
      // Not ready yet (namespace still being created, frontend still starting): try again.
      await connection.close();
      await sleep(pollIntervalMs);
    }
  }
  return undefined;
}
