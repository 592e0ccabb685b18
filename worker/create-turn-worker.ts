import { randomUUID } from 'node:crypto';
import { type NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, TranscriptCache } from '../activities';
import { type BlobStore, blobStoreOption, type FileLimitsInput, hostFiles } from '../blobs';
import { type ApprovalKeys, approvalKeysOption } from '../codec/approval-keys';
import { approvalActivities } from '../codec/approval-signature';
import { dataConverterOption, type TurnEncryption } from '../codec/turn-data-converter';
import type { UnreadablePayload } from '../codec/unreadable-payloads';
import { sessionTaskQueue } from '../contract/activities';
import { turnSearchAttributeList } from '../contract/search-attributes';
import {
  type AnyTool,
  type ConversationHooks,
  ToolHealthRegistry,
  type ToolLister,
  ToolRegistry,
  type TurnHooks,
  type TurnModel,
  type TurnObserver,
  turnToolsets,
} from '../core';
import { ensureSearchAttributes } from '../devserver/ensure-search-attributes';
import type { TurnMetrics } from '../metrics';
import { meterTurnWorker } from '../metrics/meter-turn-worker';
import type { TurnTracing } from '../tracing/turn-tracing';
import { turnTracingFromEnv } from '../tracing/turn-tracing-from-env';
import { workerTracingOptions } from '../tracing/worker-tracing-options';
import { chooseTurnWorkflowBundle, type TurnWorkflowBundleSource } from './choose-turn-workflow-bundle';
import { fleetHealthPlugins } from './fleet-health-plugin';
import type { FleetHealthReportingOptions } from './fleet-health-reporter';
import {
  createModelWorkers,
  type ModelRateLimit,
  modelQueuesOf,
  modelWorkersPlugin,
} from './model-rate-limits';
import { turnWorkflowSinks } from './turn-workflow-sinks';
import { workflowInterceptorModuleIds } from './workflow-interceptor-modules';

export interface CreateTurnWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  tools: readonly AnyTool[];
  /**
   * Servers that list tools at run time (`mcpTools` from `durable-turns/mcp`): each turn pins the
   * tools they list when it begins, on whichever worker, and keeps them to its end. A name one of
   * them shares with `tools` fails here.
   */
  mcp?: ToolLister;
  /** Models by the name turns ask for (or a list, each under its own `name`). */
  models: Readonly<Record<string, TurnModel>> | readonly TurnModel[];
  hooks?: readonly TurnHooks[];
  /** Hooks on the lives of conversations (see `ConversationHooks`): run by the conversations' workflows on this worker. */
  conversationHooks?: readonly ConversationHooks[];
  observers?: readonly TurnObserver[];
  /** Tool health shared by every activity on this worker. */
  health?: ToolHealthRegistry;
  /**
   * Prometheus metrics (`new TurnMetrics()`, served with `startMetricsServer`): this worker's tool
   * attempts, circuits and model requests, the turns its workflows start and end, and open turns
   * and turns waiting for approval on its task queue (Visibility counts).
   */
  metrics?: TurnMetrics;
  /** The transcripts this worker's model requests hold between requests (bounded; see `TranscriptCache`). */
  transcripts?: TranscriptCache;
  /**
   * Where files too large for history are kept (the claim check; see `FileLimits`). Workers and
   * clients of a queue need the same store (S3-compatible across hosts). Default: as
   * `DURABLE_TURNS_BLOB_STORE` says, else a `.state/blobs` folder; `false`: none.
   */
  blobStore?: BlobStore | false;
  /** Inline limit and per-file limit (64 KiB and 20 MiB by default). */
  fileLimits?: FileLimitsInput;
  /**
   * A prebuilt turn workflow bundle (`buildTurnWorkflowBundle` / `durable-turns-bundle --out …`) to
   * run; if it is missing or stale, creating the worker fails. Unset: the one
   * `DURABLE_TURNS_WORKFLOW_BUNDLE` names (just as strict), else the bundle at
   * `defaultTurnWorkflowBundlePath` if usable, else the workflow is bundled at start (seconds), with
   * a log line saying why. `false`: always bundle at start.
   */
  workflowBundlePath?: string | false;
  /**
   * Workflow interceptor modules (paths or package names) to install besides the turn worker's own.
   * A prebuilt bundle must have been built with the same list. (Temporal ignores
   * `worker.interceptors.workflowModules` when given a bundle: name them here.)
   */
  workflowInterceptorModules?: readonly string[];
  /**
   * While it runs, report this worker's tool health to its task queue's fleet health workflow
   * (`FleetHealthClient` reads it): every 10 s by default; `false`: do not report.
   */
  fleetHealth?: FleetHealthReportingOptions | false;
  /**
   * OpenTelemetry traces of the turns this worker runs (`createTurnTracing`). Unset: as the
   * environment says (`turnTracingFromEnv`: on when `OTEL_TRACES_EXPORTER` is set). `false`: off.
   */
  tracing?: TurnTracing | false;
  /**
   * Encryption of everything the worker sends through Temporal and reads back (see
   * `turnDataConverter`): keys, `false` for none; unset reads `DURABLE_TURNS_ENCRYPTION_KEYS`. A
   * `worker.dataConverter` given explicitly wins.
   */
  encryption?: TurnEncryption;
  /**
   * The keys that verify the decisions, grants and revocations of turns with `approvals.signed`
   * (see `signApproval`), in a local activity: they never enter history. `false`: none; unset reads
   * `DURABLE_TURNS_APPROVAL_KEYS`. A worker without keys refuses every signed turn's decisions, saying why.
   */
  approvalKeys?: ApprovalKeys | false;
  /**
   * Before it polls, the worker checks that the namespace has the search attributes turns set
   * (`turnSearchAttributeList`) and registers the missing ones: a turn whose upsert names an
   * unregistered attribute fails every workflow task, so a worker that cannot make sure of them
   * refuses to start, with the commands to register them. `false`: skip the check (the namespace
   * is known to have them, or this API key may not list them).
   */
  ensureSearchAttributes?: boolean;
  /**
   * Request rates per model that hold across the fleet (by model name): the model's requests run on
   * a task queue of their own, from which the server dispatches at most `requestsPerSecond`. Give
   * every worker of the task queue the same limits: a worker without them sends its turns'
   * requests straight to the provider. A turn's first request of a limited model costs one extra
   * round trip (a worker answers where the model's requests go; the turn asks there from then on).
   */
  modelRateLimits?: Readonly<Record<string, ModelRateLimit>>;
  /** Where the worker says why it bundles at start or that its health reports fail (default: the Temporal runtime's logger, as a warning). */
  log?: (message: string) => void;
  /** Extra Temporal worker options (concurrency limits, identity, …). */
  worker?: Partial<
    Omit<
      WorkerOptions,
      | 'connection'
      | 'namespace'
      | 'taskQueue'
      | 'activities'
      | 'workflowBundle'
      | 'workflowsPath'
      | 'bundlerOptions'
    >
  >;
}

/** The longest the SDK holds back an activity's heartbeat (and so the news of a cancel). */
export const heartbeatThrottleMs = 500;

/**
 * A Temporal worker that runs turns: the turn workflow, and the model and tool activities bound
 * to this worker's tools, models, hooks, observers and health registry.
 */
export async function createTurnWorker(options: CreateTurnWorkerOptions): Promise<
  Worker & {
    health: ToolHealthRegistry;
    workflowBundle: TurnWorkflowBundleSource;
    /** The task queue only this worker polls, for calls to sessions it holds (`sessionTaskQueue`). */
    sessionQueue?: string;
  }
> {
  const models = new Map<string, TurnModel>(
    Array.isArray(options.models)
      ? (options.models as readonly TurnModel[]).map((m) => [m.name, m])
      : Object.entries(options.models as Record<string, TurnModel>),
  );
  if (models.size === 0) throw new Error('createTurnWorker needs at least one model');
  const health = options.health ?? new ToolHealthRegistry({ now: Date.now });
  const { metrics } = options;
  if (metrics) {
    const { connection, namespace = 'default', taskQueue } = options;
    meterTurnWorker({ metrics, connection, namespace, taskQueue, models, health });
  }
  const log = options.log ?? ((message: string) => Runtime.instance().logger.warn(message));
  if (options.ensureSearchAttributes !== false)
    await ensureSearchAttributes({
      connection: options.connection,
      namespace: options.namespace ?? 'default',
      searchAttributes: turnSearchAttributeList,
      log,
    });
  const { bundle, source } = await chooseTurnWorkflowBundle({
    explicitPath: options.workflowBundlePath ?? workflowBundlePathFromEnv(),
    interceptorModuleIds: workflowInterceptorModuleIds({ extra: options.workflowInterceptorModules }),
    log,
  });
  const tracing = options.tracing === undefined ? turnTracingFromEnv() : options.tracing || undefined;
  const traced = workerTracingOptions({ tracing, given: options.worker ?? {} });
  const modelQueues = modelQueuesOf({
    limits: options.modelRateLimits,
    models,
    taskQueue: options.taskQueue,
  });
  // Shared by the model requests and the workflow's sink that hands them large contexts.
  const transcripts = options.transcripts ?? new TranscriptCache();
  const toolsets = options.mcp && turnToolsets({ own: options.tools, lister: options.mcp });
  // Calls of conversations whose sessions this worker holds come to a queue only it polls.
  const sessionQueue = options.mcp?.keepsSessions
    ? sessionTaskQueue({ taskQueue: options.taskQueue, workerId: randomUUID() })
    : undefined;
  // Read before anything polls: a malformed variable stops the worker here, with the expected format.
  const verifying = approvalActivities(approvalKeysOption(options.approvalKeys));
  const turnActivities = createActivities({
    registry: new ToolRegistry(options.tools),
    ...(toolsets ? { toolsets } : {}),
    models,
    hooks: options.hooks ?? [],
    ...(options.conversationHooks ? { conversationHooks: options.conversationHooks } : {}),
    observers: [...(options.observers ?? []), ...(metrics ? [metrics.observer] : [])],
    health,
    transcripts,
    ...(tracing ? { tracing } : {}),
    ...(modelQueues.size > 0 ? { modelQueues } : {}),
    ...(sessionQueue ? { sessionQueue } : {}),
    files: hostFiles({
      ...optionalStore(blobStoreOption(options.blobStore)),
      ...(options.fileLimits ? { limits: options.fileLimits } : {}),
    }),
  });
  const activities = { ...turnActivities, ...verifying };
  // The codec tells of payloads this worker cannot open; the fleet health reporter listens.
  const unreadable = new Set<(payload: UnreadablePayload) => void>();
  const shared = {
    ...dataConverterOption(options.encryption, {
      onUnreadable: (payload) => {
        for (const listener of unreadable) listener(payload);
      },
    }),
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    activities,
    // A cancel reaches an activity only in a heartbeat's response, and the SDK sends heartbeats at
    // most once per min(0.8 × heartbeatTimeout, this): 60 s by default, so a turn's cancel would
    // reach a running tool after ~8 s (10 s timeout). With heartbeats every 250 ms
    // (heartbeatCadenceMs) it reaches it within about heartbeatThrottleMs + 250 ms.
    maxHeartbeatThrottleInterval: heartbeatThrottleMs,
    defaultHeartbeatThrottleInterval: heartbeatThrottleMs,
    ...options.worker,
    ...traced,
  };
  // Activities only: no plugins (the turn worker's run them), sinks or workflow interceptors.
  const { plugins: _plugins, sinks: _sinks, interceptors, ...forModels } = shared;
  const activitiesOnly = {
    ...forModels,
    ...(interceptors?.activity ? { interceptors: { activity: interceptors.activity } } : {}),
  };
  const modelWorkers = await createModelWorkers({
    limits: options.modelRateLimits ?? {},
    queues: modelQueues,
    options: activitiesOnly,
  });
  // Run and shut down with the turn worker, as the model workers are.
  if (sessionQueue) modelWorkers.push(await Worker.create({ ...activitiesOnly, taskQueue: sessionQueue }));
  const worker = await Worker.create({
    ...shared,
    taskQueue: options.taskQueue,
    workflowBundle: bundle,
    sinks: { ...traced.sinks, ...turnWorkflowSinks({ ...(metrics ? { metrics } : {}), transcripts }) },
    plugins: [
      ...(options.worker?.plugins ?? []),
      ...fleetHealthPlugins({ options, health, unreadable }),
      ...(modelWorkers.length > 0 ? [modelWorkersPlugin({ workers: modelWorkers, log })] : []),
    ],
  });
  return Object.assign(worker, { health, workflowBundle: source, ...(sessionQueue ? { sessionQueue } : {}) });
}

/** `DURABLE_TURNS_WORKFLOW_BUNDLE`: the prebuilt bundle every worker of this process runs, unless told otherwise. */
function workflowBundlePathFromEnv(): string | undefined {
  return process.env.DURABLE_TURNS_WORKFLOW_BUNDLE?.trim() || undefined;
}

function optionalStore(store: BlobStore | undefined): { store?: BlobStore } {
  return store ? { store } : {};
}
