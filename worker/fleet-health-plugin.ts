import { Client } from '@temporalio/client';
import { type NativeConnection, Runtime, type WorkerPlugin } from '@temporalio/worker';
import { dataConverterOption, type TurnEncryption } from '../codec/turn-data-converter';
import type { UnreadablePayload } from '../codec/unreadable-payloads';
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
  unreadable,
}: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  health: ToolHealthRegistry;
  options?: FleetHealthReportingOptions;
  log: (message: string) => void;
  /** The worker's: its reports are encrypted as the rest of its data. */
  encryption: TurnEncryption;
  /** Where the worker's codec tells of payloads it cannot open: the reporter listens while it runs. */
  unreadable?: Set<(payload: UnreadablePayload) => void>;
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
      const listener = ({ keyId, workflowId, why }: UnreadablePayload) => {
        if (workflowId === reporter.workflowId) reporter.cannotRead({ keyId, why });
      };
      unreadable?.add(listener);
      reporter.start();
      try {
        await next(worker);
      } finally {
        unreadable?.delete(listener);
        await reporter.stop({ leave: true });
      }
    },
  };
}

/** The plugin `createTurnWorker` installs for its `fleetHealth` option (none when `false`). */
export function fleetHealthPlugins({
  options,
  health,
  unreadable,
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
  unreadable?: Set<(payload: UnreadablePayload) => void>;
}): WorkerPlugin[] {
  if (options.fleetHealth === false) return [];
  return [
    fleetHealthPlugin({
      connection: options.connection,
      namespace: options.namespace ?? 'default',
      taskQueue: options.taskQueue,
      health,
      encryption: options.encryption,
      ...(unreadable ? { unreadable } : {}),
      ...(options.fleetHealth ? { options: options.fleetHealth } : {}),
      log: options.log ?? ((message) => Runtime.instance().logger.warn(message)),
    }),
  ];
}
