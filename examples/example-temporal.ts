import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { turnSearchAttributeList } from 'durable-turns/client';
import { type EnsuredTemporal, ensureTemporal } from 'durable-turns/devserver';

/**
 * What the examples run on: the embedded Temporal dev server (or the one TEMPORAL_ADDRESS names),
 * a worker's connection to it and a client's; `close` closes both and stops a server it started.
 */
export async function exampleTemporal(log: (line: string) => void): Promise<{
  temporal: EnsuredTemporal;
  native: NativeConnection;
  connection: Connection;
  close(): Promise<void>;
}> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const temporal = await ensureTemporal({
    searchAttributes: turnSearchAttributeList,
    headless: false,
    log: (line) => log(`[temporal] ${line}`),
  });
  const { apiKey, ...options } = temporal.connectionOptions;
  const native = await NativeConnection.connect({
    ...options,
    ...(typeof apiKey === 'string' ? { apiKey } : {}),
  });
  const connection = await Connection.connect(temporal.connectionOptions);
  return {
    temporal,
    native,
    connection,
    close: async () => {
      await connection.close();
      await native.close();
      await temporal.stop();
    },
  };
}
