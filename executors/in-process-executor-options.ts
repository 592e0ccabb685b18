import type { BlobStore, FileLimitsInput } from '../blobs';
import type {
  AnyTool,
  ApprovalConfigInput,
  ApprovalGrant,
  Budget,
  CompactionConfigInput,
  DetectionConfig,
  DispatchConfig,
  HostTimers,
  LimitsConfig,
  Message,
  RetryPolicyInput,
  StructuredOutputInput,
  TimeoutsConfig,
  ToolHealthRegistry,
  ToolLister,
  ToolSession,
  TurnHooks,
  TurnInput,
  TurnModel,
  TurnObserver,
  TurnStart,
} from '../core';
import type { TurnTracing } from '../tracing/turn-tracing';
import type { TurnJournal } from './journal/turn-journal';
import type { Approver } from './turn-host';

export interface InProcessExecutorOptions {
  tools: readonly AnyTool[];
  model: TurnModel;
  dispatch?: Partial<DispatchConfig>;
  budget?: Budget;
  detection?: Partial<DetectionConfig>;
  /**
   * How long a call may wait for an approval before it is rejected as expired, and the grants
   * ("always allow") every turn starts with.
   */
  approvals?: ApprovalConfigInput;
  hooks?: readonly TurnHooks[];
  observers?: readonly TurnObserver[];
  /** Shared across turns; pass one registry to several executors to share health and circuits. */
  health?: ToolHealthRegistry;
  /**
   * Servers that list tools at run time (`mcpTools` from `durable-turns/mcp`): each turn uses the
   * tools they list when it begins, to its end. A name one of them shares with `tools` fails here.
   * (A turn resumed after its host was lost uses what they list when it resumes.)
   */
  mcp?: ToolLister;
  /** Where turns are journaled (default: this process's memory). */
  journal?: TurnJournal;
  approver?: Approver;
  /** Names this host in journal leases. */
  owner?: string;
  /** Retries of transient model failures (the engine's default: 5 attempts from 500 ms, ×2). */
  modelRetry?: RetryPolicyInput;
  /** Default time limits of a tool attempt and a model request (the engine's: 10 and 5 minutes). */
  timeouts?: Partial<TimeoutsConfig>;
  limits?: Partial<LimitsConfig>;
  /** `since-receipt`: requests send only what is new since the provider's last response id (see `continuationSchema`). */
  continuation?: 'full' | 'since-receipt';
  /** Compact the context when it would overflow (see `compactionConfigSchema`); absent: never. */
  compaction?: CompactionConfigInput;
  timers?: HostTimers;
  leaseMs?: number;
  /** OpenTelemetry traces of its turns (`createTurnTracing`). Unset: as the environment says (`turnTracingFromEnv`). `false`: off. */
  tracing?: TurnTracing | false;
  /**
   * Where files too large for the transcript are kept (the claim check; see `FileLimits`). Default:
   * as `DURABLE_TURNS_BLOB_STORE` says, else a `.state/blobs` folder; `false`: none (only files
   * within the inline limit are kept).
   */
  blobStore?: BlobStore | false;
  /** Inline limit and per-file limit (64 KiB and 20 MiB by default). */
  fileLimits?: FileLimitsInput;
}

export interface InProcessWatchOptions {
  /** Start after this entry's sequence number (0: from the start). */
  after?: number;
  /** Also the text and reasoning as they stream (default true). */
  live?: boolean;
  /** Ends the watch (it returns) when aborted, also while it waits for the turn's next event. */
  signal?: AbortSignal;
}

export interface RunTurnArgs {
  turnId: string;
  input: TurnInput;
  /**
   * Messages every model request of the turn sends before the turn's own, never recorded in its
   * journal: a conversation's earlier turns (`InProcessConversations` passes them). A model that
   * continues from a provider receipt sends only what follows it; a compacted request sends the
   * summary in their place.
   */
  earlier?: () => Promise<Message[]>;
  /**
   * The session its tool calls belong to (`ToolContext.session`): a conversation's key
   * (`conversationSessionKey`; `InProcessConversations` passes it). Absent: a standalone turn.
   */
  session?: ToolSession;
  /** Grants this turn starts with, besides the executor's (a conversation's: `InProcessConversations` passes them). */
  grants?: readonly ApprovalGrant[];
  /** A structured answer (see `OutputConfig`): the result's `output` holds the checked value. */
  output?: StructuredOutputInput;
  /** This turn's budget in place of the executor's (a sub-agent's slice; see `agentTool`). */
  budget?: Budget;
  /** A sub-agent's turn (`agentTool`): its parent turn and the call that runs it. */
  parent?: { turnId: string; toolCallId: string };
  /** A fork's record (see `InProcessExecutor.forkTurn`, which makes it). */
  fork?: TurnStart['fork'];
}
