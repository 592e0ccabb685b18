import type { AttemptResult } from '../schema/attempt-result';
import type { PreparedCall } from '../schema/prepared-call';
import { errorOutput, interruptedOutput } from './attempt-outputs';
import type { AnyTool } from './define-tool';
import { describeThrown } from './describe-thrown';
import { onAbort } from './on-abort';
import { stableHash } from './stable-hash';
import { toJson } from './to-json';

/** Timers are passed in: core code reads no clock and schedules nothing of its own. */
export interface HostTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What `executeTool` needs of the attempt's arguments (they are passed as they are). */
export interface ExecuteArgs {
  turnId: string;
  call: PreparedCall;
  attempt: number;
  timers: HostTimers;
  signal?: AbortSignal;
  heartbeat?: (details?: unknown) => void;
}

export interface Executed {
  result: AttemptResult;
  timedOut: boolean;
}

const timeoutReason = Symbol('timeout');

/**
 * Runs the tool once and says how it went, never throwing: whatever the tool throws or returns,
 * the answer is an output. A timeout or a cancel ends the attempt at once.
 */
export async function executeTool(args: ExecuteArgs, tool: AnyTool, input: unknown): Promise<Executed> {
  const { call, timers } = args;
  const timeoutMs = call.policy.timeoutMs;
  const outer = args.signal;
  // One signal per attempt: the host's own when there is no timeout (the cheap, common case),
  // else a controller that the host's signal and the timer both abort.
  const controller = timeoutMs === undefined && outer ? undefined : new AbortController();
  const signal = controller?.signal ?? (outer as AbortSignal);
  const unsubscribeOuter =
    controller && outer ? onAbort(outer, () => controller.abort(outer.reason)) : undefined;
  const timer =
    timeoutMs === undefined || !controller
      ? undefined
      : timers.setTimeout(() => controller.abort(timeoutReason), timeoutMs);
  let value: unknown;
  try {
    value = tool.execute(input, {
      turnId: args.turnId,
      toolCallId: call.toolCallId,
      idempotencyKey: `${args.turnId}/${call.toolCallId}`,
      attempt: args.attempt,
      signal,
      heartbeat: args.heartbeat ?? noop,
    });
    // A synchronous result needs no race: nothing can abort it while it runs.
    if (isThenable(value)) {
      value = await untilAborted(value, signal);
    }
  } catch (error) {
    return failed(error, signal, outer, call.toolName, timeoutMs);
  } finally {
    unsubscribeOuter?.();
    if (timer !== undefined) clearQuietly(timers, timer);
  }
  return { result: okOutput(value), timedOut: false };
}

function okOutput(value: unknown): AttemptResult {
  let content: unknown;
  try {
    content = toJson(value);
  } catch (error) {
    // The tool ran and finished: only its value cannot be carried. Running it again would repeat
    // its effects for a value that would most likely fail the same way.
    const content = `the tool's result is not JSON: ${describeThrown(error, 'converting it').message}`;
    return errorOutput('result-not-json', content, false);
  }
  return { status: 'ok', content, resultHash: stableHash(content) };
}

function failed(
  error: unknown,
  signal: AbortSignal,
  outer: AbortSignal | undefined,
  toolName: string,
  timeoutMs: number | undefined,
): Executed {
  if (signal.aborted && signal.reason === timeoutReason) {
    const content = `${toolName} timed out after ${timeoutMs} ms`;
    return { result: errorOutput('timeout', content, true, content), timedOut: true };
  }
  if (outer?.aborted) return { result: interruptedOutput('cancelled while running'), timedOut: false };
  const { message, errorType, retryable } = describeThrown(error, 'the tool');
  return { result: errorOutput(errorType, message, retryable), timedOut: false };
}

const noop = () => {};

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** A tool that ignores its signal must not hold the turn: the attempt ends when the signal fires. */
function untilAborted<T>(work: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const unsubscribe = onAbort(signal, () => reject(signal.reason));
    try {
      work.then(
        (value) => {
          unsubscribe();
          resolve(value);
        },
        (error: unknown) => {
          unsubscribe();
          reject(error);
        },
      );
    } catch (error) {
      // A hand-made thenable whose `then` throws: the same as a rejection.
      unsubscribe();
      reject(error);
    }
  });
}

function clearQuietly(timers: HostTimers, handle: unknown): void {
  try {
    timers.clearTimeout(handle);
  } catch {
    // The timer may still fire: it then aborts a finished attempt's signal, which changes nothing.
  }
}
