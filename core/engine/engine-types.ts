import type { JournalEntry } from '../schema/journal-entry';
import type { AssistantMessage, Message } from '../schema/messages';
import type { PreparedCall } from '../schema/prepared-call';
import type { ProviderMetadata } from '../schema/provider-metadata';
import type { Usage } from '../schema/usage';
import type { AppliedCompaction } from './request-context';
import type { TurnOutcome } from './turn-outcome';

/** What the engine and its hosts say to each other, besides the journal entries and host events. */

export interface ToolStart {
  call: PreparedCall;
  attempt: number;
  /** A person approved the call: a hook's `ask` is answered. */
  approved: boolean;
  /** Stable across attempts, recoveries and hosts; what a tool uses to make its effect exactly-once. */
  idempotencyKey: string;
  /** How long this attempt may run: the tool's own timeout, or the turn's default for tools. */
  timeoutMs: number;
}

/** Why a model request failed, as the host saw it; the engine decides whether to try again. */
export interface ModelFailure {
  message: string;
  /** Transient (reset, 429, 5xx, a broken stream): worth another attempt. */
  retryable: boolean;
  /** The provider asked to wait this long (Retry-After). */
  retryAfterMs?: number;
  /**
   * The conversation no longer fits the model's context window (never retryable): no retry helps,
   * a shorter conversation would. Absent for any other failure, and from hosts older than it.
   */
  kind?: 'context-overflow';
  /**
   * The request's host was lost (its worker died or stopped heartbeating), as opposed to the
   * provider failing: then the words are those of a host lost after a crash, on every executor.
   */
  lost?: boolean;
}

/** What a response cut off by its host's loss says, after a crash in process or a lost worker. */
export const hostLostMidStream = 'the host was lost while the response streamed';

/** A call waiting for a person's decision, as operators and approvers see it. */
export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  input: unknown;
  reason: string;
  /** The JSON Schema of the tool's arguments (what an edit must match; a form can be made from it). */
  inputSchema?: Record<string, unknown>;
}

export interface ModelCall {
  kind: 'call-model';
  responseIndex: number;
  /** 1 for the first request of this response, then one more per retry. */
  attempt: number;
  messages: Message[];
  idempotencyKey: string;
  /** How long the request may take before it counts as failed (and may be retried). */
  timeoutMs: number;
  /**
   * A stateful continuation (`continuation: 'since-receipt'`): the provider's id for the last
   * response that arrived whole, and where the messages after it start in `messages`.
   */
  continuation?: { previousResponseId: string; fromMessage: number };
  /** The latest compaction: the request sends its summary in place of what it covers (`requestMessages`). */
  compaction?: AppliedCompaction;
  /** The turn asks for a structured answer: the provider is asked for JSON of this schema where it can. */
  output?: RequestedOutput;
}

/** A structured answer as a model request asks for it (see `OutputConfig`). */
export interface RequestedOutput {
  schema: Record<string, unknown>;
  name?: string;
}

/**
 * Compact the context (see `context.compacted`): ask the model, with no tools, for a summary of what
 * the request would send up to `through` (the conversation's earlier turns too), followed by
 * `instruction`; report the answer as `compacted`, or a failure as `compaction-failed`, with `attempt`.
 * `compactionRequestMessages` builds the request.
 */
export interface CompactionCall {
  kind: 'compact';
  attempt: number;
  through: number;
  inputLength: number;
  /** The turn's messages (the summary covers those before `through`). */
  messages: Message[];
  /** The compaction before this one, which the request applies as any request does. */
  previous?: AppliedCompaction;
  instruction: string;
  idempotencyKey: string;
  timeoutMs: number;
}

export type TurnOperation =
  | ModelCall
  | CompactionCall
  | { kind: 'run-tools'; starts: ToolStart[] }
  /**
   * Nothing to start: wait for a running call, a retry (of a call or the model) due at `untilMs`,
   * or the approvals listed. `stop` names running calls the host must abort now (background calls
   * the turn no longer waits for); it may name the same call again, so aborting must be idempotent.
   */
  | { kind: 'wait'; untilMs?: number; approvals: ApprovalRequest[]; stop?: string[] }
  | { kind: 'finished'; outcome: TurnOutcome };

/** What a host does next, and the entries it must persist before doing it. */
export interface Step {
  entries: JournalEntry[];
  op: TurnOperation;
}

export interface ModelResponse {
  responseIndex: number;
  /** Its prose; tool-call parts, if any, are written again from the calls (one source of truth). */
  message: AssistantMessage;
  /** The response's calls after the first `streamedCallCount` (those were accepted while it streamed). */
  calls: PreparedCall[];
  usage: Usage;
  finishReason: string;
  /** How many of the response's first calls were handed over while it streamed (default: none). */
  streamedCallCount?: number;
  /**
   * Provider metadata that came for calls handed over while the response streamed only once the
   * provider finished them, by call id: written onto their tool-call parts.
   */
  streamedCallMetadata?: Record<string, ProviderMetadata>;
  /** The provider's id for the response (its receipt), when it gave one. */
  responseId?: string;
}
