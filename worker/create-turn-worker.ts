import { bundleWorkflowCode, type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type TranscriptCache } from '../activities';
import {
  type AnyTool,
  ToolHealthRegistry,
  ToolRegistry,
  type TurnHooks,
  type TurnModel,
  type TurnObserver,
} from '../core';

export interface CreateTurnWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  tools: readonly AnyTool[];
  /** Models by the name turns ask for (or a list, each under its own `name`). */
  models: Readonly<Record<string, TurnModel>> | readonly TurnModel[];
  hooks?: readonly TurnHooks[];
  observers?: readonly TurnObserver[];
  /** Tool health shared by every activity on this worker. */
  health?: ToolHealthRegistry;
  /** The transcripts this worker's model requests hold between requests (bounded; see `TranscriptCache`). */
  transcripts?: TranscriptCache;
  /** Extra Temporal worker options (concurrency limits, identity, …). */
  worker?: Partial<
    Omit<
      WorkerOptions,
      'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle' | 'workflowsPath'
    >
  >;
}

/** The longest the SDK holds back an activity's heartbeat (and so the news of a cancel). */
export const heartbeatThrottleMs = 500;

let bundle: ReturnType<typeof bundleWorkflowCode> | undefined;

/** The turn workflow bundled once per process: bundling takes seconds, and every worker runs the same code. */
export function turnWorkflowBundle(): ReturnType<typeof bundleWorkflowCode> {
  bundle ??= bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quietLogger });
  return bundle;
}

/**
 * A Temporal worker that runs turns: the turn workflow, and the model and tool activities bound
 * to this worker's tools, models, hooks, observers and health registry.
 */
export async function createTurnWorker(
  options: CreateTurnWorkerOptions,
): Promise<Worker & { health: ToolHealthRegistry }> {
  const models = new Map<string, TurnModel>(
    Array.isArray(options.models)
      ? (options.models as readonly TurnModel[]).map((m) => [m.name, m])
      : Object.entries(options.models as Record<string, TurnModel>),
  );
  if (models.size === 0) throw new Error('createTurnWorker needs at least one model');
  const health = options.health ?? new ToolHealthRegistry({ now: Date.now });
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    workflowBundle: await turnWorkflowBundle(),
    activities: createActivities({
      registry: new ToolRegistry(options.tools),
      models,
      hooks: options.hooks ?? [],
      observers: options.observers ?? [],
      health,
      ...(options.transcripts ? { transcripts: options.transcripts } : {}),
    }),
    // A cancel reaches an activity only in a heartbeat's response, and the SDK sends heartbeats at
    // most once per min(0.8 × heartbeatTimeout, this): 60 s by default, so a turn's cancel would
    // reach a running tool after ~8 s (10 s timeout). With heartbeats every 250 ms
    // (heartbeatCadenceMs) it reaches it within about heartbeatThrottleMs + 250 ms.
    maxHeartbeatThrottleInterval: heartbeatThrottleMs,
    defaultHeartbeatThrottleInterval: heartbeatThrottleMs,
    ...options.worker,
  });
  return Object.assign(worker, { health });
}

const quietLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
