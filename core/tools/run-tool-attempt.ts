import { z } from 'zod';
import type { ToolHealthRegistry } from '../health/tool-health-registry';
import type { PreToolDecision, ToolHookContext, TurnHooks } from '../hooks/turn-hooks';
import { notifyObservers, type TurnObserver } from '../hooks/turn-observer';
import type { AttemptResult } from '../schema/attempt-result';
import type { PreparedCall } from '../schema/prepared-call';
import type { AnyTool } from './define-tool';
import { toolCallKey } from './idempotency-key';
import { onAbort } from './on-abort';
import { stableHash } from './stable-hash';
import { truncateResult } from './truncate-content';

/** Large enough for real tool output, far below Temporal's 2 MiB payload limit. */
export const defaultMaxOutputBytes = 256 * 1024;

import type { ToolRegistry } from './tool-registry';

/** Timers are passed in: core code reads no clock and schedules nothing of its own. */
export interface HostTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface RunToolAttemptArgs {
  turnId: string;
  call: PreparedCall;
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
  /** The engine's key for this call (`ToolStart.idempotencyKey`); absent only from hosts older than it. */
  idempotencyKey?: string;
  /** The engine's limit for this attempt (`ToolStart.timeoutMs`); the tool's own `timeoutMs` when absent. */
  timeoutMs?: number;
}

/** Thrown by a tool to say "do not try this again". */
export class NonRetryableToolError extends Error {
  override name = 'NonRetryableToolError';
  readonly retryable = false;
}

/**
 * One attempt of one tool call, with everything that happens per attempt: observers (pre and post
 * — a blocked call still gets its post event), the circuit breaker, pre/post hooks, argument
 * validation, the timeout, and the health record. It never throws: every way an attempt can go
 * is an `AttemptResult`. Both executors run tools through this, so an attempt means the same
 * thing in-process and on a Temporal worker.
 */
export async function runToolAttempt(
  args: RunToolAttemptArgs,
): Promise<{ result: AttemptResult; durationMs: number }> {
  const { turnId, call, attempt, timers } = args;
  const observers = args.observers ?? [];
  // Events are built only for someone to hear them: this runs once per attempt, thousands per turn.
  const event =
    observers.length > 0
      ? { turnId, toolCallId: call.toolCallId, toolName: call.toolName, attempt, args: call.input }
      : undefined;
  if (event) notifyObservers(observers, 'onToolPre', event);
  const started = timers.now();
  const outcome = await attemptOutcome(args);
  const final = truncateResult(outcome.result, args.maxOutputBytes ?? defaultMaxOutputBytes);
  const durationMs = Math.max(0, timers.now() - started);
  if (args.health && outcome.kind === 'ran') {
    const health = final.status === 'ok' ? 'success' : outcome.timedOut ? 'timeout' : 'failure';
    args.health.record(call.toolName, health, durationMs);
  }
  if (event) {
    notifyObservers(observers, 'onToolPost', {
      ...event,
      durationMs,
      isError: final.status !== 'ok',
      status: final.status,
      ...('resultHash' in final ? { resultHash: final.resultHash } : {}),
      result: final,
    });
  }
  return { result: final, durationMs };
}

type Outcome =
  | { kind: 'ran'; result: AttemptResult; timedOut: boolean }
  | { kind: 'not-run'; result: AttemptResult };

async function attemptOutcome(args: RunToolAttemptArgs): Promise<Outcome> {
  const { call, registry } = args;
  const tool = registry.get(call.toolName);
  if (!tool) {
    return notRun(
      'unknown-tool',
      `unknown tool ${JSON.stringify(call.toolName)}; available tools: ${registry.names().join(', ')}`,
    );
  }
  if (args.signal?.aborted) return { kind: 'not-run', result: interrupted('cancelled before it started') };
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
    return { kind: 'not-run', result: { status: 'needs-approval', reason: pre.reason } };
  const parsed = tool.input.safeParse(pre.args);
  if (!parsed.success) {
    return notRun(
      'invalid-arguments',
      `invalid arguments for ${tool.name}:\n${z.prettifyError(parsed.error)}`,
    );
  }
  // Admission comes last, right before the tool runs: an admitted probe must run and be recorded.
  if (args.health) {
    const admission = args.health.admit(call.toolName);
    if (!admission.allowed) return notRun('circuit-open', admission.reason);
  }
  const ran = await execute(args, tool, parsed.data);
  if (ran.result.status === 'interrupted') {
    args.health?.release(call.toolName);
    return { kind: 'not-run', result: ran.result };
  }
  const result = ctx ? await runPostHooks(args, { ...ctx, args: pre.args }, ran.result) : ran.result;
  return { kind: 'ran', result, timedOut: ran.timedOut };
}

type PreOutcome =
  | { kind: 'run'; args: unknown }
  | { kind: 'block'; hook: string; reason: string }
  | { kind: 'ask'; reason: string };

async function runPreHooks(args: RunToolAttemptArgs, ctx: ToolHookContext): Promise<PreOutcome> {
  let current = ctx.args;
  for (const [index, hook] of (args.hooks ?? []).entries()) {
    if (!hook.preTool) continue;
    const name = hook.name ?? `#${index}`;
    let decision: PreToolDecision | undefined;
    try {
      decision = await hook.preTool({ ...ctx, args: current });
    } catch (error) {
      const policy = hook.onError ?? 'block';
      if (policy === 'block')
        return { kind: 'block', hook: name, reason: `the hook failed: ${messageOf(error)}` };
      if (policy === 'warn') {
        notifyObservers(args.observers ?? [], 'onHookWarning', {
          turnId: ctx.turnId,
          toolCallId: ctx.toolCallId,
          hook: name,
          error: messageOf(error),
        });
      }
      continue;
    }
    if (!decision || decision.action === 'allow') continue;
    if (decision.action === 'block') return { kind: 'block', hook: name, reason: decision.reason };
    if (decision.action === 'mutate') current = decision.args;
    if (decision.action === 'ask' && !args.approved)
      return { kind: 'ask', reason: decision.reason ?? `hook ${name} asks for approval` };
  }
  return { kind: 'run', args: current };
}

async function runPostHooks(
  args: RunToolAttemptArgs,
  ctx: ToolHookContext,
  result: AttemptResult,
): Promise<AttemptResult> {
  let current = result;
  for (const [index, hook] of (args.hooks ?? []).entries()) {
    if (!hook.postTool) continue;
    try {
      const decision = await hook.postTool({ ...ctx, result: current });
      if (decision && 'replaceContent' in decision) {
        const content = toJson(decision.replaceContent);
        current =
          current.status === 'error'
            ? {
                ...current,
                content: typeof content === 'string' ? content : JSON.stringify(content),
                resultHash: stableHash(content),
              }
            : { status: 'ok', content, resultHash: stableHash(content) };
      }
    } catch (error) {
      const policy = hook.onError ?? 'block';
      const name = hook.name ?? `#${index}`;
      if (policy === 'block') {
        const content = `post-tool hook ${name} failed: ${messageOf(error)}`;
        return {
          status: 'error',
          content,
          errorType: 'hook-failed',
          retryable: false,
          resultHash: stableHash(content),
        };
      }
      if (policy === 'warn') {
        notifyObservers(args.observers ?? [], 'onHookWarning', {
          turnId: ctx.turnId,
          toolCallId: ctx.toolCallId,
          hook: name,
          error: messageOf(error),
        });
      }
    }
  }
  return current;
}

const timeoutReason = Symbol('timeout');

async function execute(
  args: RunToolAttemptArgs,
  tool: AnyTool,
  input: unknown,
): Promise<{ result: AttemptResult; timedOut: boolean }> {
  const { call, timers } = args;
  const timeoutMs = args.timeoutMs ?? call.policy.timeoutMs;
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
  try {
    let value: unknown = tool.execute(input, {
      turnId: args.turnId,
      toolCallId: call.toolCallId,
      idempotencyKey:
        args.idempotencyKey ?? toolCallKey({ revision: 1, turnId: args.turnId, toolCallId: call.toolCallId }),
      attempt: args.attempt,
      signal,
      heartbeat: args.heartbeat ?? noop,
    });
    // A synchronous result needs no race: nothing can abort it while it runs.
    if (isThenable(value)) value = await untilAborted(value, signal);
    const content = toJson(value);
    return { result: { status: 'ok', content, resultHash: stableHash(content) }, timedOut: false };
  } catch (error) {
    if (signal.aborted && signal.reason === timeoutReason) {
      const content = `${call.toolName} timed out after ${timeoutMs} ms`;
      return {
        result: {
          status: 'error',
          content,
          errorType: 'timeout',
          retryable: true,
          resultHash: stableHash(content),
        },
        timedOut: true,
      };
    }
    if (outer?.aborted) return { result: interrupted('cancelled while running'), timedOut: false };
    const content = messageOf(error);
    const errorType = errorTypeOf(error);
    const retryable = !(
      typeof error === 'object' &&
      error !== null &&
      'retryable' in error &&
      error.retryable === false
    );
    return {
      result: {
        status: 'error',
        content,
        errorType,
        retryable,
        resultHash: stableHash(`${errorType}:${content}`),
      },
      timedOut: false,
    };
  } finally {
    if (timer !== undefined) timers.clearTimeout(timer);
    unsubscribeOuter?.();
  }
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
  });
}

function notRun(errorType: string, content: string): Outcome {
  return {
    kind: 'not-run',
    result: {
      status: 'error',
      content,
      errorType,
      retryable: false,
      resultHash: stableHash(`${errorType}:${content}`),
    },
  };
}

function interrupted(why: string): AttemptResult {
  return { status: 'interrupted', content: `interrupted: ${why}`, errorType: 'cancelled' };
}

/** Tool results cross process boundaries and land in transcripts: keep only what JSON keeps. */
function toJson(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function errorTypeOf(error: unknown): string {
  if (error instanceof Error)
    return error.name !== 'Error' ? error.name : (error.constructor?.name ?? 'Error');
  return 'Error';
}
