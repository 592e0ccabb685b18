import type { z } from 'zod';
import type {
  AnyTool,
  ApprovalRequest,
  approvalDecisionObjectSchema,
  HostFiles,
  HostTimers,
  LegacyDecision,
  SubAgents,
  ToolHealthRegistry,
  ToolRegistry,
  TurnHooks,
  TurnModel,
  TurnObserver,
} from '../core';
import type { TurnTracing } from '../tracing/turn-tracing';

/**
 * A person (or policy) deciding on a call that needs approval: approve (optionally with edited
 * `input`), reject, or respond in the tool's place (see `ApprovalDecision`); the earlier
 * `{ approved, reason }` answer still reads as approve or reject. `refused` says why the
 * approver's last answer for this call was refused (its edit did not match the tool's schema).
 */
export type Approver = (
  request: ApprovalRequest & {
    turnId: string;
    /** Set when the turn is a sub-agent (`agentTool`): the turn and call it runs for. */
    parent?: { turnId: string; toolCallId: string };
    refused?: string;
  },
) => Promise<ApproverAnswer>;

/** An approver's answer: a decision without the call's id (the request named it). */
export type ApproverAnswer =
  | Omit<z.input<typeof approvalDecisionObjectSchema>, 'toolCallId'>
  | Omit<LegacyDecision, 'toolCallId'>;

/** Everything the in-process driver needs besides the turn itself. */
export interface TurnHost {
  registry: ToolRegistry;
  model: TurnModel;
  hooks: readonly TurnHooks[];
  observers: readonly TurnObserver[];
  health: ToolHealthRegistry;
  approver?: Approver;
  /** Runs sub-agent turns for tools (`agentTool`). */
  agents?: SubAgents;
  timers: HostTimers;
  leaseMs: number;
  /** Spans for the turn, its model requests and tool attempts (default: none). */
  tracing?: TurnTracing;
  /** How files are kept and read back (the blob store behind large ones). */
  files: HostFiles;
}

export type { AnyTool };
