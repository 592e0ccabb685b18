import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import type { ProgressEntry, TurnResult } from '../core';
import {
  type ApprovalDecisionInput,
  type ApprovalGrant,
  type ApprovalGrantInput,
  approvalDecisionSchema,
  conversationOriginSchema,
  forkPointSchema,
  type GrantRevocation,
  type ListedToolset,
  listedToolsetSchema,
  type Message,
  messageSchema,
  type PreparedCall,
  type SubAgentApproval,
  type TurnStateView,
  transcriptEventSchema,
  turnConfigSchema,
  userMessageSchema,
} from '../core';

/** How long the workflow lets its activities run and how it detects a lost worker. */
export const activityTimingSchema = z.object({
  /** A tool attempt (or model stream) that stops heartbeating this long counts as lost. */
  heartbeatTimeoutMs: z.number().int().positive().default(10_000),
  /** Start-to-close for a tool attempt whose tool sets no timeout. */
  toolTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  /** Start-to-close for one model request. */
  modelTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  /** Attempts for a model request (transient provider failures). */
  modelMaxAttempts: z.number().int().positive().default(5),
  /**
   * How long a call waits for the worker that holds its conversation's session (`CallPolicy.session`)
   * to take it; past this that worker counts as gone, and the call goes to any worker, which opens a
   * new session (the model is told).
   */
  sessionWorkerWaitMs: z.number().int().positive().default(10_000),
});

/**
 * Where a conversation's session-keeping servers hold its sessions (`CallPolicy.session`): the task
 * queue of the worker that holds them, and which servers its calls reached so far.
 */
export const toolSessionsSchema = z.object({
  queue: z.string().min(1).optional(),
  /** The worker whose sessions hold the latest state (its queue), kept when `queue` is dropped. */
  current: z.string().min(1).optional(),
  opened: z.array(z.string()).default([]),
});
export type ToolSessions = z.infer<typeof toolSessionsSchema>;

export const turnWorkflowInputSchema = z.object({
  turnId: z.string().min(1),
  conversationId: z.string().min(1).optional(),
  /**
   * Set for a turn of a conversation (started by its conversation workflow): this is turn number N
   * of `conversationId`, and each model request reads turns 1 to N − 1 (`{conversationId}#1` …) by
   * reference before this turn's own messages. Absent: a standalone turn (`conversationId` a label).
   */
  conversationTurn: z.number().int().positive().optional(),
  /** Which conversation of the id it is (`ConversationState.incarnation`), set with `conversationTurn`. */
  conversationIncarnation: z.string().min(1).optional(),
  /**
   * A turn of a branch (`ConversationClient.branch`): the turns of the conversations it came from,
   * which its requests read after the conversation's own earlier turns (see `ConversationOrigin`).
   */
  conversationOrigin: conversationOriginSchema.optional(),
  input: z.array(messageSchema).min(1),
  /** A model registered on the worker, by name. */
  model: z.string().min(1),
  config: turnConfigSchema,
  timing: activityTimingSchema.default(activityTimingSchema.parse({})),
  /** Continue-as-new once the run's history passes this many events (or the server suggests it). */
  continueAsNewAfterEvents: z.number().int().positive().default(4_000),
  /** Tool outputs larger than this many bytes of JSON are cut, with a marker. */
  maxOutputBytes: z
    .number()
    .int()
    .positive()
    .default(256 * 1024),
  /** Set by the workflow itself at continue-as-new: the turn so far (see carried-turn.ts). */
  carried: z.string().optional(),
  /** With `carried`: the turn's transcript events, in packed chunks (see `PackedCarry`). */
  carriedChunks: z.array(z.string()).optional(),
  /** How many runs this turn has had (1 for the first). */
  run: z.number().int().positive().default(1),
  /** Set by the workflow itself at continue-as-new: the tools its servers listed, as pinned (`pinToolsetUpdate`). */
  toolset: listedToolsetSchema.optional(),
  /** A conversation's turn: where its sessions are held, from the turn before (or the run before). */
  sessions: toolSessionsSchema.optional(),
  /**
   * A fork of another turn (`TurnClient.fork`): that turn's record up to the fork point, which this
   * turn begins with (nothing of it runs again; see `forkPrefix`). Travels in the input, so in history.
   */
  /**
   * Set for a sub-agent's turn (`agentTool`, started by its parent's call): the parent turn and its
   * call. The turn tells its parent which of its calls wait for a person (`subAgentApprovalsSignal`).
   */
  parent: z.object({ turnId: z.string().min(1), toolCallId: z.string().min(1) }).optional(),
  fork: z
    .object({
      from: z.string().min(1),
      point: forkPointSchema,
      events: z.array(transcriptEventSchema),
      message: userMessageSchema.optional(),
    })
    .optional(),
});
export type TurnWorkflowInput = z.infer<typeof turnWorkflowInputSchema>;
export type TurnWorkflowInputArgs = z.input<typeof turnWorkflowInputSchema>;

/** The `approve` update's argument: a decision (see `approvalDecisionSchema`; the earlier yes/no form is taken too). */
export const approvalSchema = approvalDecisionSchema;
export type Approval = ApprovalDecisionInput;

/**
 * What a model activity already holds of its turn's transcript, from an earlier answer of the
 * workflow: the workflow then sends only what came after it, if that prefix still stands.
 */
export const knownTranscriptSchema = z.object({
  /** The turn's workflow chain that gave the answer (its first run's id): another turn answers in full. */
  epoch: z.string().min(1),
  messageCount: z.number().int().nonnegative(),
  /**
   * Chained digest of those messages (see `PrefixDigests`): it covers every one of them, so a
   * message changed anywhere — a reset rewrites a turn's tail — is noticed, not only the last.
   */
  messagesDigest: z.string(),
  callIdCount: z.number().int().nonnegative(),
  callIdsDigest: z.string(),
});
export type KnownTranscript = z.infer<typeof knownTranscriptSchema>;

/**
 * An asker's request to get a large answer in pages: the messages' JSON from character `offset`,
 * at most `maxChars` of it. A query answer must stay under the server's payload limit (2 MB by
 * default), and one wave's outputs alone can be larger than that.
 */
export const transcriptPageSchema = z.object({
  offset: z.number().int().nonnegative(),
  maxChars: z.number().int().positive(),
});
export type TranscriptPage = z.infer<typeof transcriptPageSchema>;

/**
 * What the model activity reads from its workflow instead of carrying the transcript as input.
 * `messages` and `callIds` are the tails from `messagesFrom` and `callIdsFrom` on: both 0 (the
 * whole transcript) unless the asker's known prefix was confirmed.
 */
export interface ModelRequestContext {
  responseIndex: number;
  epoch: string;
  messagesFrom: number;
  messages: Message[];
  /** Chained digest of the whole transcript's messages, to send back as `messagesDigest`. */
  messagesDigest: string;
  /** Ids of the turn's earlier calls (an id is unique across the whole turn). */
  callIdsFrom: number;
  callIds: string[];
  /** Chained digest of all the call ids, to send back as `callIdsDigest`. */
  callIdsDigest: string;
  /** Calls of this response the workflow already accepted from an earlier attempt's stream. */
  acceptedCallIds: string[];
  /**
   * Present when the asker asked for pages and the messages' JSON is larger than a page: then
   * `messages` is empty and this is `text.length` characters of that JSON from `offset` on, of
   * `length` in all. Every page of one read carries the same digests; only the first carries
   * `callIds`.
   */
  messagesPage?: { offset: number; text: string; length: number };
}

/** A tool call complete in a model stream, reported by the model activity while it streams. */
export interface StreamedCall {
  responseIndex: number;
  call: PreparedCall;
}

/** Calls handed over in one Update: those that completed while the previous Update was in flight. */
export interface StreamedCalls {
  responseIndex: number;
  calls: PreparedCall[];
}

export const stateQuery = defineQuery<TurnStateView>('state');
/** The model request's context: the transcript (or what is new since `known`) and the call ids used so far. */
export const modelRequestQuery = defineQuery<
  ModelRequestContext | null,
  [number, KnownTranscript?, TranscriptPage?]
>('modelRequest');
export const approveUpdate = defineUpdate<{ accepted: true }, [Approval]>('approve');
/** "Always allow" for this turn (or, scope `conversation`, also its conversation's later turns): see `ApprovalGrant`. */
export const grantUpdate = defineUpdate<{ accepted: true }, [ApprovalGrantInput]>('grant');
/** Ends a grant: the tool's next calls ask again. */
export const revokeUpdate = defineUpdate<{ accepted: true }, [GrantRevocation]>('revoke');
/**
 * A grant or its end given in the turn's conversation (which sends them: a workflow cannot send an
 * update). A signal cannot be refused: one the turn cannot take is logged and dropped.
 */
export const conversationGrantSignal = defineSignal<[ApprovalGrantInput]>('conversationGrant');
export const conversationRevokeSignal = defineSignal<[GrantRevocation]>('conversationRevoke');
/** At most this many waiting calls in one report (the first ones; a person decides a few at a time). */
export const maxReportedApprovals = 50;

/**
 * A sub-agent's report to its parent (`TurnWorkflowInput.parent`): the calls that wait for a person
 * in it and below it, now (the whole list each time, so a lost or late report is mended by the next).
 */
export const subAgentApprovalsSchema = z.object({
  /** The parent's call that runs the sub-agent. */
  toolCallId: z.string().min(1),
  /** The sub-agent's turn: its parent takes a report only from the turn its call runs. */
  turnId: z.string().min(1),
  /** When the sub-agent sent it (its workflow's clock): a report older than one taken is dropped. */
  at: z.number().optional(),
  approvals: z
    .array(
      z.object({
        turnId: z.string().min(1),
        toolCallId: z.string().min(1),
        toolName: z.string(),
        /** Its arguments, or (`inputCut`) the start of their JSON: the call's own turn has them whole. */
        input: z.unknown(),
        inputCut: z.boolean().optional(),
        reason: z.string(),
      }),
    )
    .max(maxReportedApprovals),
});
export type SubAgentApprovals = z.infer<typeof subAgentApprovalsSchema>;
export const subAgentApprovalsSignal = defineSignal<[SubAgentApprovals]>('subAgentApprovals');
export const steerSchema = z.object({ messageId: z.string().min(1), message: userMessageSchema });
export type SteerMessage = z.infer<typeof steerSchema>;
/**
 * A message a user sends into the running turn (its conversation's `steer`): recorded at the next
 * model-request boundary, or not at all once the model has answered without calls (see
 * `TurnEngine.onSteer`); the result's `steered` lists those recorded. A signal: the conversation
 * workflow sends it, and a workflow cannot send an Update.
 */
export const steerSignal = defineSignal<[SteerMessage]>('steer');
/**
 * Internal: a worker with MCP servers offers the tools they list now; the first offer of a turn is
 * pinned, and every later one is answered with the pinned list (`toolset` only when it differs from
 * the offer, so a history holds the list about once). See `ListedToolset`.
 */
export const pinToolsetUpdate = defineUpdate<PinnedToolset, [ListedToolset]>('pinToolset');
export interface PinnedToolset {
  digest: string;
  toolset?: ListedToolset;
}
/** Internal: the model activity hands over finished tool calls (the handler only enqueues). */
export const acceptCallsUpdate = defineUpdate<{ accepted: boolean }, [StreamedCalls]>('acceptCalls');

/**
 * What the workflow returns: the summary in the clear (for the Web UI and list views), the
 * transcript and events packed — a long turn's would not fit one payload as plain JSON. The
 * outputs are not repeated: they are the tool results in the transcript. `TurnHandle.result()`
 * unpacks it into a `TurnResult`.
 */
export interface TurnWorkflowResult {
  turnId: string;
  status: TurnResult['status'];
  reason?: string;
  text: string;
  usage: TurnResult['usage'];
  modelResponses: number;
  toolCalls: number;
  /**
   * `packJson({ events, notices })`: the transcript is rebuilt from the events (see `unpackResult`).
   * Empty when it is longer than `resultInlineMaxChars`: then `packedLength` says how long, and
   * `packedResultQuery` gives it in pages.
   */
  packed: string;
  packedLength?: number;
  /** Message ids of the steers the turn recorded (absent when none). */
  steered?: string[];
  /** Where its conversation's sessions are held now (absent when it has none): the next turn's. */
  sessions?: ToolSessions;
  /** The grants in force at its end (absent when none): its conversation keeps those of scope `conversation`. */
  grants?: ApprovalGrant[];
  /** The grants revoked in the turn (their ids): its conversation drops those too. */
  grantsRevoked?: string[];
  /** A turn with an output schema that completed: its answer, parsed and checked. */
  output?: unknown;
}

/**
 * The most characters of packed transcript a workflow's result carries itself: a result is one
 * payload, and the server refuses one over 2 MB — it terminated such a turn at its end, its
 * work done and nothing returned. Packed JSON is base64: a character is a byte, and JSON adds no
 * escapes to it.
 */
export const resultInlineMaxChars = 1_500_000;
/** A longer packed transcript, from `offset`, in pages of `resultInlineMaxChars` characters. */
export const packedResultQuery = defineQuery<string, [number]>('packedResult');

/** One journal entry as watchers see it, numbered across the turn's runs (defined in core/). */
export type { ProgressEntry } from '../core';

export interface ProgressPage {
  entries: ProgressEntry[];
  /** The newest sequence number (pass it back as `after`). */
  lastSeq: number;
  finished: boolean;
  /** Entries older than the kept window were dropped before they were read. */
  gap: boolean;
  /** What its running sub-agents wait on for a person (`TurnStateView.subAgentApprovals`), when any. */
  subAgentApprovals?: SubAgentApproval[];
}

/** The turn's progress after a sequence number: calls accepted, started, finished, responses, the end. */
export const progressQuery = defineQuery<ProgressPage, [number]>('progress');

export const turnWorkflowType = 'turnWorkflow';
