import { z } from 'zod';
import type { CallPolicy, PreparedCall } from '../schema/prepared-call';
import { retryPolicySchema } from '../schema/retry-policy';
import type { AnyTool } from './define-tool';
import type { ToolRegistry } from './tool-registry';

/** A tool call as a model produced it: arguments still the raw text from the stream. */
export interface RawToolCall {
  toolCallId: string;
  toolName: string;
  /** Argument JSON text as streamed, or an already parsed value. */
  input: unknown;
}

const rejectedPolicy: CallPolicy = {
  concurrencySafe: true,
  resources: [],
  retry: retryPolicySchema.parse({}),
  retrySafe: false,
  requiresApproval: false,
};

/**
 * Turns a model's call into a planned call: checks the id, finds the tool, validates the
 * arguments and evaluates the tool's policy for them. A call that cannot run is not dropped: it
 * carries a `rejection` that becomes its error output, so the model learns what was wrong.
 *
 * `usedIds` holds the ids the turn has used so far; an empty or repeated id is replaced by a fresh
 * one (the transcript must pair every call with exactly one result, and the id keys idempotency).
 */
export function prepareCall({
  registry,
  raw,
  position,
  responseIndex,
  usedIds,
}: {
  registry: ToolRegistry;
  raw: RawToolCall;
  position: number;
  responseIndex: number;
  usedIds: ReadonlySet<string>;
}): PreparedCall {
  const input = parseArguments(raw.input);
  const base = { toolName: raw.toolName, input: input.ok ? input.value : raw.input };
  const id = raw.toolCallId.trim();
  if (id === '' || usedIds.has(id)) {
    const fresh = uniqueId(`call_r${responseIndex}_${position}`, usedIds);
    const what =
      id === ''
        ? 'the model sent a tool call without an id'
        : `the tool call id ${JSON.stringify(id)} was already used in this turn`;
    return reject({ ...base, toolCallId: fresh }, 'invalid-call-id', `${what}; this call was not run`);
  }
  const tool = registry.get(raw.toolName);
  if (!tool) {
    const known = registry.names().join(', ') || '(none)';
    return reject(
      { ...base, toolCallId: id },
      'unknown-tool',
      `unknown tool ${JSON.stringify(raw.toolName)}; available tools: ${known}`,
    );
  }
  if (!input.ok) {
    return reject(
      { ...base, toolCallId: id },
      'invalid-arguments',
      `arguments for ${tool.name} are not valid JSON: ${input.error}`,
    );
  }
  const parsed = tool.input.safeParse(input.value);
  if (!parsed.success) {
    return reject(
      { ...base, toolCallId: id },
      'invalid-arguments',
      `invalid arguments for ${tool.name}:\n${z.prettifyError(parsed.error)}`,
    );
  }
  return { ...base, toolCallId: id, policy: evaluatePolicy(tool, parsed.data) };
}

export function evaluatePolicy(tool: AnyTool, args: unknown): CallPolicy {
  return {
    concurrencySafe: safely(
      () =>
        typeof tool.concurrencySafe === 'function'
          ? tool.concurrencySafe(args)
          : (tool.concurrencySafe ?? false),
      false,
    ),
    resources: safely(() => [...(tool.resources?.(args) ?? [])].map(String), []),
    retry: retryPolicySchema.parse(tool.retry ?? {}),
    timeoutMs: tool.timeoutMs,
    retrySafe: tool.retrySafe ?? false,
    requiresApproval: safely(
      () =>
        typeof tool.requiresApproval === 'function'
          ? tool.requiresApproval(args)
          : (tool.requiresApproval ?? false),
      true,
    ),
  };
}

function reject(
  call: Omit<PreparedCall, 'policy' | 'rejection'>,
  errorType: string,
  message: string,
): PreparedCall {
  return { ...call, policy: rejectedPolicy, rejection: { errorType, message } };
}

/** A policy function that throws must not crash the turn; fall back to the cautious answer. */
function safely<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

function parseArguments(input: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  if (typeof input !== 'string') return { ok: true, value: input };
  if (input.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(input) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function uniqueId(base: string, used: ReadonlySet<string>): string {
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
  return id;
}
