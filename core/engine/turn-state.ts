import { LoopDetector } from '../detection/loop-detector';
import type { WavePlanner } from '../dispatch/plan-waves';
import type { ApprovalGrant } from '../schema/approval-grant';
import type { AttemptResult } from '../schema/attempt-result';
import type { DecisionVia } from '../schema/decision-via';
import type { Message, UserMessage } from '../schema/messages';
import type { PreparedCall } from '../schema/prepared-call';
import type { ToolOutput } from '../schema/tool-output';
import type { TurnConfig } from '../schema/turn-config';
import type { HaltReason, TurnStatus } from '../schema/turn-status';
import type { Usage } from '../schema/usage';
import { zeroUsage } from '../schema/usage';

export type CallPhase = 'pending' | 'awaiting-approval' | 'running' | 'retry-wait' | 'done';

export interface AttemptState {
  attempt: number;
  startedAt: number;
  finishedAt?: number;
  durationMs?: number;
  result?: AttemptResult;
}

export interface CallState {
  call: PreparedCall;
  position: number;
  wave: number;
  phase: CallPhase;
  attempts: AttemptState[];
  /** The attempt number the next launch uses. */
  nextAttempt: number;
  /** For `retry-wait`: when the next attempt is due. */
  retryAt?: number;
  /** The decision taken: `input` when the approver edited the arguments (the call runs with them). */
  approval?: {
    approved: boolean;
    reason?: string;
    input?: unknown;
    by?: string;
    via?: DecisionVia;
    /** Approved by this grant, without asking. */
    grantId?: string;
  };
  /** Why a hook asked for approval (a tool that always requires it needs no reason). */
  approvalReason?: string;
  /** The tool's argument schema a hook's approval request came with (an edit is checked against it). */
  approvalSchema?: Record<string, unknown>;
  /** When the call began waiting for its current decision. */
  approvalRequestedAt?: number;
  /** Set once the call's output is decided (it may wait for earlier calls to be recorded). */
  final?: ToolOutput;
  /** Whether the call ever started (it then counts against the tool-call budget). */
  launched: boolean;
  /** Attempts whose host was lost (outcome unknown) and that were run again. */
  lostAttempts?: number;
  /** Attempts whose host could not read them (the tool never ran): they count for nothing. */
  notStartedAttempts?: number;
  recorded: boolean;
  /**
   * A background call whose first attempt started: its place in the batch holds the placeholder
   * result, and its true output (`final`) is delivered later.
   */
  backgrounded?: boolean;
  /** Why the call is being stopped (the turn halted, or the wait for background calls ran out): no attempt starts again. */
  stopRequested?: string;
}

export interface BatchState {
  responseIndex: number;
  calls: CallState[];
  byId: Map<string, CallState>;
  /** Outputs are recorded in batch order: calls before this index are recorded. */
  recordedCount: number;
  /** The response is still streaming: more calls may come, and nothing is recorded before it ends. */
  streamOpen: boolean;
  /** Where the launch planner's scan starts (every call before it is done); a cache, not state. */
  scanFrom?: number;
  /** Plans the waves of calls as they join; a cache, rebuilt from `calls` when missing. */
  planner?: WavePlanner;
}

/** A message a user sent into the running turn (see the `user.steered` event). */
export interface Steer {
  messageId: string;
  message: UserMessage;
}

export interface TurnState {
  turnId: string;
  /** The engine rules this turn runs under (see `engineRevision`). */
  revision: number;
  config: TurnConfig;
  /** The whole conversation: the input, then what the turn added. */
  messages: Message[];
  /** Where the turn's own messages start in `messages`. */
  inputLength: number;
  /** The index of the next model response. */
  responseIndex: number;
  /** A model request whose intent is recorded and whose response is not. */
  modelInFlight: boolean;
  /** Failed attempts of the request in flight. */
  modelFailures: number;
  /** When the request in flight is tried again after a failure. */
  modelRetryAt?: number;
  /** The latest response asked for no tools: the model is done. */
  modelDone: boolean;
  batch?: BatchState;
  spent: { modelResponses: number; toolCalls: number; usage: Usage; startedAt: number };
  halt?: { reason: HaltReason; detail: string };
  /** A halt the reducer decided (loop stop) and `settle` must still record. */
  pendingHalt?: { reason: HaltReason; detail: string };
  finished?: { status: TurnStatus; reason?: string; output?: unknown };
  /** Answers that did not match the turn's output schema (each asked again). */
  outputRejections?: number;
  outputs: { toolCallId: string; toolName: string; output: ToolOutput }[];
  /** Every tool call id the turn has used. */
  callIds: Set<string>;
  /** Background calls whose output is not delivered yet, in launch order (from any batch). */
  background: CallState[];
  /** Background calls whose output was delivered (their entry in `outputs` is that output). */
  delivered: Set<string>;
  /** Since when the turn has waited, with the model done, for background calls. */
  backgroundWaitSince?: number;
  /**
   * Steers received and not yet recorded (they wait for a model-request boundary). Not carried across
   * continue-as-new or a host's restart: a steer lost so is left for the conversation's next turn.
   */
  pendingSteers?: Steer[];
  /** Message ids of the steers recorded (so a repeated one is taken once). */
  steered?: Set<string>;
  /**
   * The provider's id for the last response that arrived whole, and how many messages the
   * transcript had then (the response's own included): a stateful continuation starts after them.
   */
  receipt?: { responseIndex: number; responseId: string; messageCount: number };
  /** The size of the last response's context (its input and output tokens); unknown after a compaction. */
  contextTokens?: number;
  /** The latest compaction: requests send its summary in place of what it covers (see `context.compacted`). */
  compaction?: { summary: string; through: number };
  /** A compaction asked for and not yet done: the next request waits for it. */
  compacting?: { through: number; reason: 'budget' | 'overflow'; failures: number; retryAt?: number };
  /** Where a compaction last gave up: it is not asked for again at the same point. */
  compactionDeclinedAt?: number;
  /** The grants in force (the config's, then those granted, less those revoked); absent: none. */
  grants?: ApprovalGrant[];
  /** The ids of the grants revoked in this turn, in order (absent: none). */
  grantsRevoked?: string[];
  detector: LoopDetector;
}

export function initialState({
  turnId,
  revision,
  config,
  input,
}: {
  turnId: string;
  revision: number;
  config: TurnConfig;
  input: Message[];
}): TurnState {
  return {
    turnId,
    revision,
    config,
    messages: [...input],
    inputLength: input.length,
    responseIndex: 0,
    modelInFlight: false,
    modelFailures: 0,
    modelDone: false,
    spent: { modelResponses: 0, toolCalls: 0, usage: zeroUsage, startedAt: 0 },
    outputs: [],
    callIds: new Set(),
    background: [],
    delivered: new Set(),
    detector: new LoopDetector(config.detection),
  };
}

/** True while the calls of the current batch are not all recorded. */
export function batchOpen(state: TurnState): state is TurnState & { batch: BatchState } {
  return state.batch !== undefined && state.batch.recordedCount < state.batch.calls.length;
}
