import type { AttemptResult } from '../schema/attempt-result';
import { feedHostEvent } from './host-event';
import type { ToolStart, TurnEngine, TurnOperation } from './turn-engine';
import type { TurnSnapshot } from './turn-snapshot';
import type { TurnState } from './turn-state';

/**
 * Quick calls that run back to back (a response's calls that must run one after another) cost a
 * Temporal host one local activity and one workflow activation each: ~2 ms a call on the floor,
 * most of it the SDK's. A chain runs them in one local activity instead, with the engine deciding
 * each next start there, on a copy restored from the turn's snapshot: fed each outcome at the
 * time the chain began, it asks for the next call exactly as the workflow's engine will when it
 * is fed the same outcomes (the engine is deterministic), and the chain stops wherever the engine
 * would do anything but start one more quick call (a model request, a wait for a retry or an
 * approval, a halt, several starts at once). The workflow then feeds the outcomes in order and
 * takes each started call's outcome from the chain instead of running it.
 */

/** One attempt a chain ran, as the host reports it to the engine. */
export interface ChainedAttempt {
  toolCallId: string;
  attempt: number;
  result: AttemptResult;
  durationMs: number;
}

/** How long a chain goes on starting calls: a query, a cancel or an approval waits for it (as for one quick call). */
export const quickChainWindowMs = 1_000;
/** The chain's outcomes travel in one payload, which Temporal refuses over 2 MiB: this much, with room for the rest. */
export const quickChainPayloadBytes = 1_792 * 1024;

/**
 * Whether a chain may begin with this start, from the workflow's engine's view just after it was
 * decided: every other call the engine could hear about meanwhile would make the copies differ,
 * so the start must be the turn's only running call, with no model request, background call or
 * approval in play, and a wall-time budget must outlast the chain (the workflow feeds its outcomes
 * at a later time than the chain decided at). A next call worth chaining must follow it.
 */
export function mayBeginQuickChain({
  view,
  start,
  now,
  chainTimeoutMs,
}: {
  view: Readonly<TurnState>;
  start: ToolStart;
  now: number;
  /** The chain's own timeout: the longest it can take. */
  chainTimeoutMs: number;
}): boolean {
  const { call } = start;
  const batch = view.batch;
  if (!call.policy.quick || call.policy.background || !batch || batch.streamOpen) return false;
  if (view.config.dispatch.chainQuickCalls === false) return false;
  if (view.modelInFlight || view.background.length > 0 || view.halt || view.finished) return false;
  const budget = view.config.budget.maxWallTimeMs;
  if (budget !== undefined && view.spent.startedAt + budget <= now + chainTimeoutMs) return false;
  let after = false;
  let worthIt = false;
  for (const other of batch.calls) {
    if (other.call.toolCallId === call.toolCallId) {
      after = true;
      continue;
    }
    if (other.phase === 'running' || other.phase === 'awaiting-approval') return false;
    if (after && !worthIt && other.phase === 'pending')
      worthIt = other.call.policy.quick === true && !other.call.policy.requiresApproval;
  }
  return worthIt;
}

/**
 * The snapshot a chain restores its engine from: the turn's, without the transcript (deciding
 * launches never reads it, and a long turn's is megabytes).
 */
export function quickChainSnapshot(engine: TurnEngine): TurnSnapshot {
  return { ...engine.snapshot(), messages: [], inputLength: 0 };
}

/**
 * Runs `first` and then each call the engine starts next, one at a time, while it starts exactly
 * one quick call, the chain is within its window and its outcomes within their bytes. Returns the
 * attempts run, in order; each ran fully (its own timeout and signal as for any attempt).
 */
export async function runQuickChain({
  engine,
  first,
  now,
  maxOutputBytes,
  elapsedMs,
  stopped,
  run,
}: {
  /** Restored from `quickChainSnapshot` of the workflow's engine, just after it decided `first`. */
  engine: TurnEngine;
  first: ToolStart;
  /** The workflow's time when it decided `first`: every decision of the chain is taken at it. */
  now: number;
  maxOutputBytes: number;
  /** How long the chain has been running. */
  elapsedMs: () => number;
  /** The chain was asked to stop (the turn's cancel): no call starts after that. */
  stopped: () => boolean;
  run: (start: ToolStart) => Promise<{ result: AttemptResult; durationMs: number }>;
}): Promise<ChainedAttempt[]> {
  const ran: ChainedAttempt[] = [];
  // A next outcome's bytes at most: its content is cut at maxOutputBytes, and JSON writes a byte as six at worst.
  const nextAtMost = 6 * maxOutputBytes + 1024;
  let bytes = 0;
  let start = first;
  for (;;) {
    let outcome: { result: AttemptResult; durationMs: number };
    try {
      outcome = await run(start);
    } catch (error) {
      // Attempts never throw (every ending is a result); should one, a later call of the chain is
      // left to the engine to start again (quick calls are retry-safe), the first fails the chain.
      if (ran.length === 0) throw error;
      break;
    }
    const { result, durationMs } = outcome;
    const { toolCallId } = start.call;
    ran.push({ toolCallId, attempt: start.attempt, result, durationMs });
    // UTF-8 takes at most three bytes for a UTF-16 unit.
    bytes += 3 * JSON.stringify(result).length;
    if (stopped() || elapsedMs() >= quickChainWindowMs || bytes + nextAtMost > quickChainPayloadBytes) break;
    let op: TurnOperation;
    try {
      const finished = {
        kind: 'attempt-finished',
        toolCallId,
        attempt: start.attempt,
        result,
        durationMs,
      } as const;
      feedHostEvent(engine, finished, now);
      op = engine.next(now).op;
    } catch {
      // The copy could not go on (a bug, never a tool's doing): what ran is reported, nothing more runs.
      break;
    }
    if (op.kind !== 'run-tools' || op.starts.length !== 1) break;
    const next = op.starts[0] as ToolStart;
    if (!next.call.policy.quick || next.call.policy.background) break;
    start = next;
  }
  return ran;
}
