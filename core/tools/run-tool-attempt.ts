import { z } from 'zod';
import { DurableTurnsError, hasMarker } from '../errors/durable-turns-error';
import type { ToolHealthRegistry } from '../health/tool-health-registry';
import type { ToolHookContext, TurnHooks } from '../hooks/turn-hooks';
import {
  notifyObservers,
  type ToolPostEvent,
  type ToolPreEvent,
  type TurnObserver,
} from '../hooks/turn-observer';
import type { AttemptResult } from '../schema/attempt-result';
import type { AttemptCall } from '../schema/prepared-call';
import type { SubAgentSpent } from '../schema/tool-output';
import { errorOutput, interruptedOutput } from './attempt-outputs';
import type { ToolSession } from './define-tool';
import { describeThrown } from './describe-thrown';
import { executeTool, type HostTimers } from './execute-tool';
import { evaluatePolicy } from './prepare-call';
import { type PreOutcome, runPostHooks, runPreHooks } from './run-tool-hooks';
import { stableHash } from './stable-hash';
import { FileRejectedError, type StoreToolFiles, type ToolFile } from './tool-files';
import { toolJsonSchema } from './tool-json-schema';
import type { ToolRegistry } from './tool-registry';
import { truncateResult } from './truncate-content';

export { defaultCancelGraceMs, type HostTimers } from './execute-tool';

/** Large enough for real tool output, far below Temporal's 2 MiB payload limit. */
export const defaultMaxOutputBytes = 256 * 1024;

export interface RunToolAttemptArgs {
  turnId: string;
  call: AttemptCall;
  attempt: number;
  registry: ToolRegistry;
  hooks?: readonly TurnHooks[];
  observers?: readonly TurnObserver[];
  health?: ToolHealthRegistry;
  timers: HostTimers;
  /** Aborts the attempt: the turn was cancelled. */
  signal?: AbortSignal;
  heartbeat?: (details?: unknown) => void;
  /** The call was approved by a person, so an `ask` from a hook is already answered. */
  approved?: boolean;
  /** Outputs larger than this (bytes of JSON) are cut with a marker. */
  maxOutputBytes?: number;
  /**
   * How long a tool still running when `signal` aborts may take to settle (default 1000 ms): a
   * result within it is recorded as it is; still pending after it, the outcome is unknown.
   */
  cancelGraceMs?: number;
  /** The engine's key for this call (`ToolStart.idempotencyKey`); absent only from hosts older than it. */
  idempotencyKey?: string;
  /** The engine's limit for this attempt (`ToolStart.timeoutMs`); the tool's own `timeoutMs` when absent. */
  timeoutMs?: number;
  /** How this host keeps the files a tool returns (`withFiles`); without it, a tool's files are an error. */
  storeFiles?: StoreToolFiles;
  /** The session the call belongs to (`ToolContext.session`); absent for a standalone turn. */
  session?: ToolSession;
}

const nonRetryableMarker = Symbol.for('durable-turns.non-retryable-tool-error');

/** Thrown by a tool to say "do not try this again" (code `tool-non-retryable`). */
export class NonRetryableToolError extends DurableTurnsError {
  readonly [nonRetryableMarker] = true;
  readonly retryable = false;

  constructor(message?: string, options?: { cause?: unknown }) {
    super(message ?? '', { code: 'tool-non-retryable', ...options });
    this.name = 'NonRetryableToolError';
  }

  static override isInstance(error: unknown): error is NonRetryableToolError {
    return hasMarker(error, nonRetryableMarker);
  }
}

/**
 * One attempt of one tool call, with everything that happens per attempt: observers (pre and post
 * — a blocked call still gets its post event), the circuit breaker, pre/post hooks, argument
 * validation, the timeout, the grace after a cancel, and the health record. It never throws and
 * never rejects: every way an attempt can go is an `AttemptResult`, whatever a tool, hook or
 * observer throws — and even a bug in here becomes an `internal-error` output, because in-process
 * a rejection here would be unhandled and end the whole process. Both executors run tools through
 * this, so an attempt means the same thing in-process and on a Temporal worker.
 */
export async function runToolAttempt(
  args: RunToolAttemptArgs,
): Promise<{ result: AttemptResult; durationMs: number }> {
  // Kept outside the guard so that a failure can still close the observers' pre/post pair.
  let told = false;
  let started: number | undefined;
  try {
    const { turnId, call, attempt, timers } = args;
    const observers = args.observers ?? [];
    // Events are built only for someone to hear them: this runs once per attempt, thousands per turn.
    told = observers.length > 0;
    if (told && observers.some(hasToolPre)) notifyObservers(observers, 'onToolPre', preEvent(args));
    started = timers.now();
    const outcome = await attemptOutcome(args);
    const truncated = truncateResult(outcome.result, args.maxOutputBytes ?? defaultMaxOutputBytes);
    const stored =
      outcome.kind === 'ran' && outcome.files
        ? await withStoredFiles(truncated, outcome.files, args)
        : truncated;
    const final = outcome.kind === 'ran' && outcome.spent ? charged(stored, outcome.spent) : stored;
    const durationMs = Math.max(0, timers.now() - started);
    if (args.health && outcome.kind === 'ran') {
      const health = final.status === 'ok' ? 'success' : outcome.timedOut ? 'timeout' : 'failure';
      recordHealth(args.health, call.toolName, health, durationMs);
    }
    if (told) {
      told = false;
      // Spelled out, not spread from a pre event: the spread (with an optional key) cost ~3 µs an
      // attempt, which every host with an observer paid (bench/in-process.ts, `metrics`). One literal
      // for each shape, so that no event changes shape after it is made.
      const postEvent: ToolPostEvent =
        'resultHash' in final
          ? {
              turnId,
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              attempt,
              args: call.input,
              durationMs,
              isError: final.status !== 'ok',
              status: final.status,
              result: final,
              resultHash: final.resultHash,
            }
          : {
              turnId,
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              attempt,
              args: call.input,
              durationMs,
              isError: true,
              status: final.status,
              result: final,
            };
      notifyObservers(observers, 'onToolPost', postEvent);
    }
    return { result: final, durationMs };
  } catch (error) {
    return internalError(args, error, told, started);
  }
}

function preEvent({ turnId, call, attempt }: RunToolAttemptArgs): ToolPreEvent {
  return { turnId, toolCallId: call.toolCallId, toolName: call.toolName, attempt, args: call.input };
}

// Read as notifyObservers reads it: a getter that throws means the observer is not told.
function hasToolPre(observer: TurnObserver): boolean {
  try {
    return observer.onToolPre !== undefined;
  } catch {
    return false;
  }
}

type Outcome =
  | {
      kind: 'ran';
      result: AttemptResult;
      timedOut: boolean;
      files?: readonly ToolFile[];
      spent?: SubAgentSpent;
    }
  | { kind: 'not-run'; result: AttemptResult };

/**
 * The result with what the sub-agents the attempt ran spent (recorded by the host as it ran them,
 * see `SubAgentLedger`), for the engine to charge to the turn. An attempt that did not finish
 * (interrupted) carries none: it is run again, or the turn is ending.
 */
function charged(result: AttemptResult, spent: SubAgentSpent): AttemptResult {
  return result.status === 'ok' || result.status === 'error' ? { ...result, spent } : result;
}

async function attemptOutcome(args: RunToolAttemptArgs): Promise<Outcome> {
  const { call, registry } = args;
  const tool = registry.get(call.toolName);
  if (!tool) {
    return notRun(
      'unknown-tool',
      `unknown tool ${JSON.stringify(call.toolName)}; available tools: ${registry.names().join(', ')}`,
    );
  }
  if (args.signal?.aborted)
    return { kind: 'not-run', result: interruptedOutput('cancelled before it started') };
  const hooks = args.hooks ?? [];
  const ctx: ToolHookContext | undefined =
    hooks.length > 0
      ? {
          turnId: args.turnId,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          attempt: args.attempt,
          args: call.input,
        }
      : undefined;
  const pre: PreOutcome = ctx ? await runPreHooks(args, ctx) : { kind: 'run', args: call.input };
  if (pre.kind === 'block') return notRun('blocked', `blocked by hook ${pre.hook}: ${pre.reason}`);
  if (pre.kind === 'ask')
    return {
      kind: 'not-run',
      result: { status: 'needs-approval', reason: pre.reason, inputSchema: toolJsonSchema(tool) },
    };
  const parsed = tool.input.safeParse(pre.args);
  if (!parsed.success) {
    return notRun(
      'invalid-arguments',
      `invalid arguments for ${tool.name}:\n${z.prettifyError(parsed.error)}`,
    );
  }
  // The engine starts a call its tool requires approval for only once approved. One that comes
  // without (forged into the turn from outside, or one the tool's rules now hold for these
  // arguments, which a hook rewrote or a new release changed) does not run: it waits for a person.
  if (!args.approved && evaluatePolicy(tool, parsed.data).requiresApproval)
    return {
      kind: 'not-run',
      result: {
        status: 'needs-approval',
        reason: `${tool.name} requires approval for these arguments before it runs`,
        inputSchema: toolJsonSchema(tool),
      },
    };
  // The hooks took time: a cancel that came meanwhile finds the tool not started, and says so.
  if (ctx && args.signal?.aborted)
    return { kind: 'not-run', result: interruptedOutput('cancelled before it started') };
  // Admission comes last, right before the tool runs: an admitted probe must run and be recorded.
  if (args.health) {
    const admission = args.health.admit(call.toolName);
    if (!admission.allowed) return notRun('circuit-open', admission.reason);
  }
  const ran = await executeTool(args, tool, parsed.data);
  if (ran.result.status === 'interrupted') {
    if (args.health) releaseHealth(args.health, call.toolName);
    return { kind: 'not-run', result: ran.result };
  }
  const result = ctx ? await runPostHooks(args, { ...ctx, args: pre.args }, ran.result) : ran.result;
  const outcome: Outcome = ran.files
    ? { kind: 'ran', result, timedOut: ran.timedOut, files: ran.files }
    : { kind: 'ran', result, timedOut: ran.timedOut };
  if (ran.spent) outcome.spent = ran.spent;
  return outcome;
}

/**
 * An ok result with the tool's files kept by the host (inline or in its blob store). A file the
 * host will not keep makes the output an error that says which and why, not retried: the tool ran,
 * and running it again would bring the same file. (A post hook that turned the result into an error
 * leaves the files out.)
 */
async function withStoredFiles(
  result: AttemptResult,
  files: readonly ToolFile[],
  args: RunToolAttemptArgs,
): Promise<AttemptResult> {
  if (result.status !== 'ok') return result;
  if (!args.storeFiles)
    return errorOutput(
      'file-not-stored',
      `the tool returned ${files.length} file(s), but this host keeps no files (give it a blob store)`,
      false,
    );
  try {
    const stored = await args.storeFiles(files);
    // Two screenshots under the same caption are different results (loop detection compares hashes).
    return { ...result, files: stored, resultHash: stableHash([result.resultHash, stored]) };
  } catch (error) {
    if (FileRejectedError.isInstance(error)) return errorOutput(error.errorType, error.message, false);
    return errorOutput(
      'file-not-stored',
      `the tool's files could not be kept: ${describeThrown(error, 'storing them').message}`,
      false,
    );
  }
}

function notRun(errorType: string, content: string): Outcome {
  return { kind: 'not-run', result: errorOutput(errorType, content, false) };
}

// The health registry counts; it never decides what the attempt's output is. A registry that
// throws (a host's own implementation, a bug) loses one record, not the tool's result.
function recordHealth(
  health: ToolHealthRegistry,
  toolName: string,
  outcome: Parameters<ToolHealthRegistry['record']>[1],
  durationMs: number,
): void {
  try {
    health.record(toolName, outcome, durationMs);
  } catch {
    // See above: the result stands.
  }
}

function releaseHealth(health: ToolHealthRegistry, toolName: string): void {
  try {
    health.release(toolName);
  } catch {
    // As for a record: the interrupted output stands.
  }
}

/**
 * The last resort: something in here (or a host-supplied registry, health registry or clock)
 * threw where nothing should. The failure may have come after the tool started, so the output
 * says that its outcome is not known, and it is not retried.
 */
function internalError(
  args: RunToolAttemptArgs,
  error: unknown,
  told: boolean,
  started: number | undefined,
): { result: AttemptResult; durationMs: number } {
  const content = `internal error while running the attempt (whether the tool ran is not known): ${describeThrown(error, 'it').message}`;
  const result = errorOutput('internal-error', content, false);
  let durationMs = 0;
  try {
    if (started !== undefined) durationMs = Math.max(0, args.timers.now() - started);
    // A pre event was sent and its post was not: close the pair, as for any other output.
    if (told) {
      notifyObservers(args.observers ?? [], 'onToolPost', {
        ...preEvent(args),
        durationMs,
        isError: true,
        status: 'error',
        resultHash: result.resultHash,
        result,
      });
    }
  } catch {
    // The host's clock or observer list is what failed: the output above still stands.
  }
  return { result, durationMs };
}
