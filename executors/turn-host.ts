import type {
  AnyTool,
  ApprovalRequest,
  HostFiles,
  HostTimers,
  ToolHealthRegistry,
  ToolRegistry,
  TurnHooks,
  TurnModel,
  TurnObserver,
} from '../core';
import type { TurnTracing } from '../tracing/turn-tracing';

/** A person (or policy) deciding on a call that needs approval. */
export type Approver = (
  request: ApprovalRequest & { turnId: string },
) => Promise<{ approved: boolean; reason?: string }>;

/** Everything the in-process driver needs besides the turn itself. */
export interface TurnHost {
  registry: ToolRegistry;
  model: TurnModel;
  hooks: readonly TurnHooks[];
  observers: readonly TurnObserver[];
  health: ToolHealthRegistry;
  approver?: Approver;
  timers: HostTimers;
  leaseMs: number;
  /** Spans for the turn, its model requests and tool attempts (default: none). */
  tracing?: TurnTracing;
  /** How files are kept and read back (the blob store behind large ones). */
  files: HostFiles;
}

export type { AnyTool };
