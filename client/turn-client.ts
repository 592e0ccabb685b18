import {
  type Client,
  type ClientInterceptors,
  type Connection,
  Client as TemporalClient,
  WorkflowExecutionAlreadyStartedError,
} from '@temporalio/client';
import { decodeSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { optionalTsToDate } from '@temporalio/common/lib/time';
import { type BlobStore, blobStoreOption, type FileLimitsInput, keepInputFiles } from '../blobs';
import { type ApprovalKeys, approvalKeysOption } from '../codec/approval-keys';
import { dataConverterOption, type TurnEncryption } from '../codec/turn-data-converter';
import type { HealthHistoryBody } from '../contract/fleet-health-history';
import type { TurnWatchEvent } from '../contract/live-text';
import { turnSearchAttributes } from '../contract/search-attributes';
import type { ProgressEntry } from '../contract/turn-workflow';
import { turnWorkflowType } from '../contract/turn-workflow';
import {
  DurableTurnsError,
  type ForkPoint,
  forkPrefix,
  type ToolOutput,
  type TurnStatus,
  type UserMessage,
} from '../core';
import { formatIssues } from '../core/schema/format-issues';
import { normalizeInput } from '../core/schema/messages';
import { turnClientInterceptors } from '../tracing/turn-client-interceptors';
import { FleetHealthClient } from './fleet-health-client';
import type { FleetHealthView } from './fleet-health-view';
import { type StartTurnArgs, startTurnSchema } from './start-turn-args';
import { type Decider, TurnHandle, type WatchOptions } from './turn-handle';
import { turnStartMetadata } from './turn-start-metadata';
import { turnWorkflowInputFrom } from './turn-workflow-input';
import { quoteVisibility } from './visibility-quote';

export interface TurnClientOptions {
  connection: Connection;
  namespace?: string;
  taskQueue: string;
  /**
   * Temporal client interceptors. Default: `turnClientInterceptors()` (durable-turns/tracing), which
   * start each turn's trace when `OTEL_TRACES_EXPORTER` is set, and are none otherwise.
   */
  interceptors?: ClientInterceptors;
  /**
   * Encryption of everything the turns send through Temporal (see `turnDataConverter`): keys, `false`
   * for none; unset reads `DURABLE_TURNS_ENCRYPTION_KEYS`. Workers and clients of a queue need the
   * same keys.
   */
  encryption?: TurnEncryption;
  /**
   * Where files too large for the transcript are kept (the claim check; see `FileLimits`). Default:
   * as `DURABLE_TURNS_BLOB_STORE` says, else a `.state/blobs` folder; `false`: none (only files
   * within the inline limit are kept).
   */
  blobStore?: BlobStore | false;
  /** Inline limit and per-file limit (64 KiB and 20 MiB by default). */
  fileLimits?: FileLimitsInput;
  /**
   * Who decides on approvals through this client (a person, a service): kept in the journal with
   * each decision and shown on the timeline. `via` says through what (default `api`).
   */
  approver?: Decider;
  /**
   * The keys this client signs its decisions, grants and revocations with (what a turn with
   * `approvals.signed` requires; see `signApproval`): `false` for none; unset reads
   * `DURABLE_TURNS_APPROVAL_KEYS`, as the CLI and the dashboard do.
   */
  approvalKeys?: ApprovalKeys | false;
}

export { type StartTurnArgs, startTurnSchema } from './start-turn-args';

/** What `fork` takes: the source and the fork point, then the new turn as `start` takes it. */
export interface ForkArgs extends Omit<StartTurnArgs, 'input' | 'fork'> {
  from: string;
  at: ForkPoint;
  /** Outputs of calls before the fork point to replace, by call id. */
  outputs?: Readonly<Record<string, ToolOutput>>;
  /** The user's next message, after the record. */
  message?: UserMessage | string;
}

export interface TurnSummary {
  turnId: string;
  status: TurnStatus | 'running' | string;
  conversationId?: string;
  waitingForApproval: boolean;
  startTime: Date;
  closeTime?: Date;
  /** The model's name on the worker; absent for turns begun before workers recorded it. */
  model?: string;
  /** Tool calls started and tokens spent, as of the turn's last response, wait or end. */
  toolCalls?: number;
  tokens?: number;
}

/**
 * Starts, finds and steers turns on Temporal. The turn id is the workflow id, so it is the fence:
 * one running workflow per turn id, a second start attaches instead of running it twice, and a
 * finished turn id is never run again by accident.
 */
export class TurnClient {
  readonly client: Client;
  /** The task queue its turns (and conversations) run on. */
  readonly taskQueue: string;
  private readonly blobStore: BlobStore | undefined;
  private readonly fileLimits: FileLimitsInput | undefined;
  /** Who decides on approvals through this client's handles. */
  readonly approver: Decider;
  private readonly approvalKeys: ApprovalKeys | undefined;

  constructor(options: TurnClientOptions) {
    this.client = new TemporalClient({
      connection: options.connection,
      namespace: options.namespace ?? 'default',
      interceptors: options.interceptors ?? turnClientInterceptors(),
      ...dataConverterOption(options.encryption),
    });
    this.taskQueue = options.taskQueue;
    this.blobStore = blobStoreOption(options.blobStore);
    this.fileLimits = options.fileLimits;
    this.approver = options.approver ?? {};
    this.approvalKeys = approvalKeysOption(options.approvalKeys);
  }

  async start(args: StartTurnArgs): Promise<TurnHandle> {
    const parsed = startTurnSchema.safeParse(args);
    if (!parsed.success) {
      throw new Error(`invalid turn: ${formatIssues(parsed.error)}`);
    }
    const a = parsed.data;
    // Large files go to the blob store first: the workflow's input (and so its history) holds references.
    const kept = await keepInputFiles({
      messages: normalizeInput(a.input),
      store: this.blobStore,
      ...(this.fileLimits ? { limits: this.fileLimits } : {}),
    });
    const input = turnWorkflowInputFrom({ args, parsed: { ...a, input: kept } });
    try {
      const handle = await this.client.workflow.start(turnWorkflowType, {
        workflowId: a.turnId,
        taskQueue: this.taskQueue,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: a.ifRunning === 'attach' ? 'USE_EXISTING' : 'FAIL',
        // What the Web UI's list shows for the turn: its model and the first line of its input.
        ...turnStartMetadata({
          turnId: a.turnId,
          ...(a.conversationId ? { conversationId: a.conversationId } : {}),
          model: a.model,
          messages: input.input,
        }),
      });
      return new TurnHandle(a.turnId, handle, this.approver, this.approvalKeys);
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        throw new Error(
          a.ifRunning === 'fail'
            ? `turn ${a.turnId} already exists (running or finished); use attach(${JSON.stringify(a.turnId)}) to follow it`
            : `turn ${a.turnId} already ran; a finished turn id is not run again — use attach(${JSON.stringify(a.turnId)}) to read its result, or start a new turn id`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /**
   * A new turn from a past position of a finished one (see `forkPrefix`): it begins with the
   * source's record up to `at` (no tool runs again, no request is repeated; its own calls get keys
   * of their own), optionally with edited outputs and the user's next message. The rest is as
   * `start` takes it (the new turn's id, model, configuration); its input is the source's. A source
   * still running is refused (`fork-source-running`) rather than waited for.
   */
  async fork({ from, at, outputs, message, ...start }: ForkArgs): Promise<TurnHandle> {
    const handle = this.attach(from);
    if ((await handle.closedAt()) === undefined)
      throw new DurableTurnsError(
        `cannot fork turn ${from}: it is still running (a fork starts from a finished turn's record; wait for its result, or cancel it)`,
        { code: 'fork-source-running' },
      );
    const source = await handle.result();
    const started = source.events[0];
    if (started?.type !== 'turn.started')
      throw new Error(`cannot fork turn ${from}: its record has no start`);
    const events = forkPrefix(source.events, at, outputs ? { outputs } : {});
    const next = typeof message === 'string' ? { role: 'user' as const, content: message } : message;
    const fork = { from, point: at, events, ...(next ? { message: next } : {}) };
    return this.start({ ...start, input: started.input, fork });
  }

  /** The progress of a turn (running or finished) as it happens; see `TurnHandle.watch`. */
  watch(
    turnId: string,
    options: WatchOptions & { live: false },
  ): AsyncGenerator<ProgressEntry & { kind: 'entry' }>;
  watch(turnId: string, options?: WatchOptions): AsyncGenerator<TurnWatchEvent>;
  watch(turnId: string, options?: WatchOptions): AsyncGenerator<TurnWatchEvent> {
    return this.attach(turnId).watch(options);
  }

  /** A handle on an existing turn (running or finished). */
  attach(turnId: string): TurnHandle {
    return new TurnHandle(turnId, this.client.workflow.getHandle(turnId), this.approver, this.approvalKeys);
  }

  /** Tool health across the live workers of this client's task queue; see `FleetHealthClient`. */
  fleetHealth(options: { timeoutMs?: number } = {}): Promise<FleetHealthView> {
    return new FleetHealthClient({ client: this.client }).fleetHealth({
      taskQueue: this.taskQueue,
      ...options,
    });
  }

  /** Success rates over time, per tool and worker, of this client's task queue; see `FleetHealthClient`. */
  healthHistory(options: { timeoutMs?: number } = {}): Promise<HealthHistoryBody> {
    return new FleetHealthClient({ client: this.client }).healthHistory({
      taskQueue: this.taskQueue,
      ...options,
    });
  }

  /**
   * Turns of this client's task queue, newest first, filtered by status, conversation and a pending
   * approval (through the search attributes).
   */
  async list({ limit = 100, ...filters }: TurnListFilters & { limit?: number } = {}): Promise<TurnSummary[]> {
    const out: TurnSummary[] = [];
    for await (const execution of this.client.workflow.list({ query: this.listQuery(filters) })) {
      out.push(turnSummaryOf({ execution }));
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * One page of `list`: at most `pageSize` turns, and the cursor of the next page (none after the
   * last). The cursor is Visibility's own page token, so pages neither skip nor repeat a turn
   * however many turns share a start time.
   */
  async listPage({
    pageSize = 50,
    cursor,
    ...filters
  }: TurnListFilters & { pageSize?: number; cursor?: string } = {}): Promise<{
    turns: TurnSummary[];
    nextCursor?: string;
  }> {
    const response = await this.client.workflowService.listWorkflowExecutions({
      namespace: this.client.options.namespace,
      query: this.listQuery(filters),
      pageSize,
      ...(cursor ? { nextPageToken: Buffer.from(cursor, 'base64url') } : {}),
    });
    const turns = (response.executions ?? []).map((raw) =>
      turnSummaryOf({
        execution: {
          workflowId: raw.execution?.workflowId ?? '',
          searchAttributes: decodeSearchAttributes(raw.searchAttributes?.indexedFields),
          startTime: optionalTsToDate(raw.startTime) ?? new Date(0),
          closeTime: optionalTsToDate(raw.closeTime),
        },
      }),
    );
    const token = response.nextPageToken;
    return {
      turns,
      ...(token && token.length > 0 ? { nextCursor: Buffer.from(token).toString('base64url') } : {}),
    };
  }

  private listQuery(filters: TurnListFilters): string {
    return turnListQuery({ taskQueue: this.taskQueue, ...filters });
  }
}

export interface TurnListFilters {
  status?: string;
  conversationId?: string;
  waitingForApproval?: boolean;
  /** Turns whose id or conversation id starts with this text. */
  search?: string;
}

function turnListQuery({
  taskQueue,
  status,
  conversationId,
  waitingForApproval,
  search,
}: TurnListFilters & { taskQueue: string }): string {
  // A turn's workflow runs on its client's task queue: another queue's turns belong to other workers.
  const clauses = [`WorkflowType = '${turnWorkflowType}'`, `TaskQueue = '${quoteVisibility(taskQueue)}'`];
  // A turn is running as long as its workflow is, whether or not it has recorded a status yet (one
  // no worker has picked up has none): the workflow's own status says it.
  if (status === 'running') clauses.push(`ExecutionStatus = 'Running'`);
  else if (status) clauses.push(`${turnSearchAttributes.status.name} = '${quoteVisibility(status)}'`);
  if (conversationId)
    clauses.push(`${turnSearchAttributes.conversationId.name} = '${quoteVisibility(conversationId)}'`);
  if (waitingForApproval !== undefined)
    clauses.push(`${turnSearchAttributes.waitingForApproval.name} = ${waitingForApproval}`);
  if (search)
    clauses.push(
      `(WorkflowId STARTS_WITH '${quoteVisibility(search)}' OR ${turnSearchAttributes.conversationId.name} STARTS_WITH '${quoteVisibility(search)}')`,
    );
  return clauses.join(' AND ');
}

function turnSummaryOf({
  execution,
}: {
  execution: { workflowId: string; searchAttributes: unknown; startTime: Date; closeTime?: Date | undefined };
}): TurnSummary {
  const attrs = execution.searchAttributes as Record<string, unknown[] | undefined>;
  const first = (name: string) => attrs[name]?.[0];
  const conversation = first(turnSearchAttributes.conversationId.name);
  const model = first(turnSearchAttributes.model.name);
  const count = (name: string) => {
    const value = Number(first(name));
    return Number.isFinite(value) && first(name) !== undefined ? value : undefined;
  };
  const toolCalls = count(turnSearchAttributes.toolCalls.name);
  const tokens = count(turnSearchAttributes.tokens.name);
  return {
    turnId: execution.workflowId,
    status: String(first(turnSearchAttributes.status.name) ?? 'running'),
    ...(typeof conversation === 'string' ? { conversationId: conversation } : {}),
    waitingForApproval: first(turnSearchAttributes.waitingForApproval.name) === true,
    startTime: execution.startTime,
    ...(execution.closeTime ? { closeTime: execution.closeTime } : {}),
    ...(typeof model === 'string' ? { model } : {}),
    ...(toolCalls !== undefined ? { toolCalls } : {}),
    ...(tokens !== undefined ? { tokens } : {}),
  };
}
