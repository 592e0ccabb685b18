import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { activityInputInvalidType } from '../contract/activities';
import type {
  ConversationHooks,
  HostFiles,
  HostTimers,
  ToolHealthRegistry,
  ToolRegistry,
  TurnHooks,
  TurnModel,
  TurnObserver,
  TurnToolsets,
} from '../core';
import { formatIssues } from '../core/schema/format-issues';
import type { TurnTracing } from '../tracing/turn-tracing';
import type { TranscriptCache } from './transcript-cache';

/** What the activities of a worker are bound to. */
export interface ActivityDeps {
  registry: ToolRegistry;
  /** Each turn's tools when servers list some at run time (MCP): the worker's own and the turn's pinned list. */
  toolsets?: TurnToolsets;
  models: ReadonlyMap<string, TurnModel>;
  hooks: readonly TurnHooks[];
  observers: readonly TurnObserver[];
  health: ToolHealthRegistry;
  /** What model requests read of their turns' transcripts (default: a cache of this worker's own). */
  transcripts?: TranscriptCache;
  /** Spans for model requests and tool attempts, children of the activity's (default: none). */
  tracing?: TurnTracing;
  /**
   * The task queue of each model whose requests are rate-limited across the fleet: a request for
   * one that arrives on another queue is sent there instead (see `ModelRouted`).
   */
  modelQueues?: ReadonlyMap<string, string>;
  /** How files are kept and read back (the blob store behind large ones). */
  files: HostFiles;
  /** Hooks on the lives of the conversations whose workflows this worker runs. */
  conversationHooks?: readonly ConversationHooks[];
  /**
   * The task queue only this worker polls (`sessionTaskQueue`), when it holds sessions of
   * session-keeping servers: a call to one tells its workflow to send the conversation's next there.
   */
  sessionQueue?: string;
}

/** The worker's own clock and timers, for the tool attempts it runs. */
export const timers: HostTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** `work`, or the error `failure` makes once `ms` pass first. */
export function withDeadline<T>(work: Promise<T>, ms: number, failure: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(failure()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * An activity's input as the contract says it must be; anything else is a bug or a version skew
 * between workflow and worker, which another attempt would not cure: a non-retryable failure
 * that names what was wrong.
 */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown, activity: string): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.nonRetryable(
    `${activity} got an input it cannot read: ${formatIssues(parsed.error)}`,
    activityInputInvalidType,
  );
}

/**
 * How often an activity heartbeats: often enough that a cancel reaches it within about the
 * worker's heartbeat throttle (`heartbeatThrottleMs`, see createTurnWorker) plus this, and that a
 * lost worker is noticed well within the heartbeat timeout.
 */
export const heartbeatCadenceMs = 250;

export function heartbeatEvery(ctx: Context): number {
  const timeout = ctx.info.heartbeatTimeoutMs ?? 10_000;
  return Math.max(20, Math.min(heartbeatCadenceMs, Math.floor(timeout / 4)));
}
