import { Client } from '@temporalio/client';
import { type NativeConnection, Runtime, type WorkerPlugin } from '@temporalio/worker';
import { dataConverterOption, type TurnEncryption } from '../codec/turn-data-converter';
import type { ToolHealthRegistry } from '../core';
import { FleetHealthReporter, type FleetHealthReportingOptions } from './fleet-health-reporter';

/**
 * Reports the worker's tool health while it runs (see `FleetHealthReporter`): from `run()` until
 * it returns or throws, under the worker's Temporal identity. A worker plugin, because the SDK
 * calls its `runWorker` around every way a worker runs (`run`, `runUntil`).
 */
export function fleetHealthPlugin({
  connection,
  namespace,
  taskQueue,
  health,
  options,
  log,
  encryption,
}: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  health: ToolHealthRegistry;
  options?: FleetHealthReportingOptions;
  log: (message: string) => void;
  /** The worker's: its reports are encrypted as the rest of its data. */
  encryption: TurnEncryption;
}): WorkerPlugin {
  return {
    name: 'durable-turns-fleet-health',
    runWorker: async (worker, next) => {
      const reporter = new FleetHealthReporter({
        client: new Client({ connection, namespace, ...dataConverterOption(encryption) }),
        taskQueue,
        identity: worker.options.identity,
        health,
        ...(options ? { options } : {}),
        log,
      });
      reporter.start();
      try {
        await next(worker);
      } finally {
        await reporter.stop({ leave: true });
      }
    },
  };
}

/** The plugin `createTurnWorker` installs for its `fleetHealth` option (none when `false`). */
export function fleetHealthPlugins({
  options,
  health,
}: {
  options: {
    connection: NativeConnection;
    namespace?: string;
    taskQueue: string;
    fleetHealth?: FleetHealthReportingOptions | false;
    log?: (message: string) => void;
    encryption?: TurnEncryption;
  };
  health: ToolHealthRegistry;
}): WorkerPlugin[] {
  if (options.fleetHealth === false) return [];
  return [
    fleetHealthPlugin({
      connection: options.connection,
      namespace: options.namespace ?? 'default',
      taskQueue: options.taskQueue,
      health,
      encryption: options.encryption,
      ...(options.fleetHealth ? { options: options.fleetHealth } : {}),
      log: options.log ?? ((message) => Runtime.instance().logger.warn(message)),
    }),
  ];
}
