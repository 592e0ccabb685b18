import type { AttemptResult } from '../schema/attempt-result';
import type { AttemptCall } from '../schema/prepared-call';
import type { SubAgentSpent } from '../schema/tool-output';
import { errorOutput, interruptedOutput } from './attempt-outputs';
import type { AnyTool, ToolSession } from './define-tool';
import { describeThrown } from './describe-thrown';
import { toolCallKey } from './idempotency-key';
import { onAbort } from './on-abort';
import { stableHash } from './stable-hash';
import { SubAgentLedger } from './sub-agent-ledger';
import type { SubAgents } from './sub-agents';
import { toJson } from './to-json';
import { type ToolFile, ToolResultWithFiles } from './tool-files';

/** Timers are passed in: core code reads no clock and schedules nothing of its own. */
export interface HostTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** How long a tool that is running when the turn is cancelled may take to settle. */
export const defaultCancelGraceMs = 1000;

/** What `executeTool` needs of the attempt's arguments (they are passed as they are). */
export interface ExecuteArgs {
  turnId: string;
  call: AttemptCall;
  attempt: number;
  timers: HostTimers;
  signal?: AbortSignal;
  heartbeat?: (details?: unknown) => void;
  cancelGraceMs?: number;
  /** The engine's key for this call (`ToolStart.idempotencyKey`); absent only from hosts older than it. */
  idempotencyKey?: string;
  /** The engine's limit for this attempt (`ToolStart.timeoutMs`); the tool's own `timeoutMs` when absent. */
  timeoutMs?: number;
  /** The session the call belongs to (`ToolContext.session`); absent for a standalone turn. */
  session?: ToolSession;
  /** Runs sub-agent turns for the tool (`ToolContext.agents`). */
  agents?: SubAgents;
}

export interface Executed {
  result: AttemptResult;
  timedOut: boolean;
  /** Files the tool returned with its result (`withFiles`), for the host to keep. */
  files?: readonly ToolFile[];
  /** What the sub-agent turns it ran through `ctx.agents` spent, when it ran any (see `SubAgentLedger`). */
  spent?: SubAgentSpent;
}

const timeoutReason = Symbol('timeout');

/**
 * Runs the tool once and says how it went, never throwing. A timeout ends the attempt at once.
 * A cancel (the host's signal) gives a running tool a grace period to settle, because ending it
 * at once would tell the model an effect did not happen when it may just have: a result that
 * comes back within the grace is the attempt's result; a rejection means the tool stopped; still
 * pending at the end, its outcome is unknown, and the output says so.
 */
export async function executeTool(args: ExecuteArgs, tool: AnyTool, input: unknown): Promise<Executed> {
  const { call, timers } = args;
  const timeoutMs = args.timeoutMs ?? call.policy?.timeoutMs;
  const ctx = new AttemptContext(args, timeoutMs);
  let value: unknown;
  try {
    value = tool.execute(input, ctx);
    // A synchronous result needs no race: nothing can abort it while it runs.
    if (isThenable(value)) {
      value = await untilSettled(value, ctx.signal, timers, args.cancelGraceMs ?? defaultCancelGraceMs);
    }
  } catch (error) {
    return withSpent(failed(error, ctx.made, args.signal, call.toolName, timeoutMs), ctx);
  } finally {
    ctx.release();
  }
  if (ToolResultWithFiles.isInstance(value)) {
    const result = okOutput(value.content);
    return withSpent(
      result.status === 'ok' && value.files.length > 0
        ? { result, timedOut: false, files: value.files }
        : { result, timedOut: false },
      ctx,
    );
  }
  return withSpent({ result: okOutput(value), timedOut: false }, ctx);
}

/**
 * Each attempt's ledger of the sub-agents its tool ran (made when the tool first reads
 * `ctx.agents`), out of the tool's reach: what it charges comes from the host's runs alone.
 */
const ledgers = new WeakMap<AttemptContext, SubAgentLedger>();

/** What its sub-agents spent as the attempt ended: one that answers later is not this attempt's. */
function withSpent(executed: Executed, ctx: AttemptContext): Executed {
  const spent = ledgers.get(ctx)?.total();
  return spent ? { ...executed, spent } : executed;
}

/**
 * The `ctx` a tool gets. Its signal is the attempt's own, made when the tool first reads it or
 * turns out to be asynchronous: the host's signal and the timer abort it, and it is unlinked from
 * the host's when the attempt ends (a finished call's signal never fires on a later cancel). A
 * synchronous tool that never looks at it costs no controller, listener or timer; a class, so
 * nothing is allocated per attempt beyond the instance — this runs thousands of times a turn.
 */
class AttemptContext {
  readonly turnId: string;
  readonly toolCallId: string;
  readonly idempotencyKey: string;
  readonly attempt: number;
  readonly heartbeat: (details?: unknown) => void;
  readonly session: ToolSession | undefined;
  // Truly private: a tool must not reach the host's sub-agents past its ledger (see `agents`).
  readonly #args: ExecuteArgs;
  private controller?: AbortController;
  private unsubscribe?: () => void;
  private timer?: unknown;

  constructor(
    args: ExecuteArgs,
    private readonly timeoutMs: number | undefined,
  ) {
    this.#args = args;
    this.turnId = args.turnId;
    this.toolCallId = args.call.toolCallId;
    this.idempotencyKey =
      args.idempotencyKey ??
      toolCallKey({ revision: 1, turnId: args.turnId, toolCallId: args.call.toolCallId });
    this.attempt = args.attempt;
    this.heartbeat = args.heartbeat ?? noop;
    this.session = args.session;
  }

  /** The host's sub-agents, through this attempt's ledger (a tool that never asks costs nothing). */
  get agents(): SubAgents | undefined {
    const host = this.#args.agents;
    if (!host) return undefined;
    let ledger = ledgers.get(this);
    if (!ledger) {
      ledger = new SubAgentLedger(host);
      ledgers.set(this, ledger);
    }
    return ledger.agents;
  }

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const own = new AbortController();
    this.controller = own;
    const outer = this.#args.signal;
    if (outer) this.unsubscribe = onAbort(outer, () => own.abort(outer.reason));
    if (this.timeoutMs !== undefined)
      this.timer = this.#args.timers.setTimeout(() => own.abort(timeoutReason), this.timeoutMs);
    return own.signal;
  }

  /** The signal, if the attempt made one. */
  get made(): AbortSignal | undefined {
    return this.controller?.signal;
  }

  release(): void {
    this.unsubscribe?.();
    if (this.timer !== undefined) clearQuietly(this.#args.timers, this.timer);
  }
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
  signal: AbortSignal | undefined,
  outer: AbortSignal | undefined,
  toolName: string,
  timeoutMs: number | undefined,
): Executed {
  if (signal?.aborted && signal.reason === timeoutReason) {
    const content = `${toolName} timed out after ${timeoutMs} ms`;
    return { result: errorOutput('timeout', content, true, content), timedOut: true };
  }
  const unsettledBecause = unsettledWhy(error);
  if (unsettledBecause !== undefined) {
    return {
      result: interruptedOutput(
        `cancelled while running; its outcome is unknown (${unsettledBecause})`,
        'outcome-unknown',
      ),
      timedOut: false,
    };
  }
  if (outer?.aborted)
    return { result: interruptedOutput('cancelled while running; the tool stopped'), timedOut: false };
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

/**
 * The tool was still pending when the grace after a cancel ran out (or none could be given): the
 * value the race rejects with. Recognised through a WeakMap, never `instanceof`: the race may
 * instead reject with whatever the tool threw, and `instanceof` on a hostile Proxy throws.
 */
const unsettledReasons = new WeakMap<object, string>();

function unsettled(why: string): object {
  const marker = {};
  unsettledReasons.set(marker, why);
  return marker;
}

function unsettledWhy(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? unsettledReasons.get(error) : undefined;
}

/**
 * The tool's own settlement, unless the signal aborts first: a timeout rejects at once (a tool
 * that ignores its signal must not hold the turn), a cancel waits up to `graceMs` for the tool.
 * The grace timer exists only once a cancel has come: the common path schedules nothing.
 */
function untilSettled<T>(
  work: PromiseLike<T>,
  signal: AbortSignal,
  timers: HostTimers,
  graceMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let grace: unknown;
    // Runs inside the signal's abort dispatch, where a throw would be an uncaught exception.
    const unsubscribe = onAbort(signal, () => {
      if (signal.reason === timeoutReason) return reject(timeoutReason);
      try {
        grace = timers.setTimeout(
          () => reject(unsettled(`it did not stop within ${graceMs} ms of the cancel`)),
          graceMs,
        );
      } catch (error) {
        reject(
          unsettled(`no grace period could be timed: ${describeThrown(error, 'the host timers').message}`),
        );
      }
    });
    try {
      work.then(
        (value) => {
          resolve(value);
          tidy(unsubscribe, grace, timers);
        },
        (error: unknown) => {
          reject(error);
          tidy(unsubscribe, grace, timers);
        },
      );
    } catch (error) {
      // A hand-made thenable whose `then` throws: the same as a rejection.
      reject(error);
      tidy(unsubscribe, grace, timers);
    }
  });
}

/** Settle first, tidy after: a host timer that fails to clear must not lose the result. */
function tidy(unsubscribe: () => void, grace: unknown, timers: HostTimers): void {
  unsubscribe();
  if (grace !== undefined) clearQuietly(timers, grace);
}

function clearQuietly(timers: HostTimers, handle: unknown): void {
  try {
    timers.clearTimeout(handle);
  } catch {
    // The timer may still fire: it then aborts a finished attempt's signal or rejects a settled
    // race, and neither changes the result.
  }
}
