import { z } from 'zod';
import { quoted } from '../schema/format-issues';
import type { CallPolicy, PreparedCall } from '../schema/prepared-call';
import type { ProviderMetadata } from '../schema/provider-metadata';
import { type RetryPolicy, retryPolicySchema } from '../schema/retry-policy';
import type { AnyTool } from './define-tool';
import { toolJsonSchema } from './tool-json-schema';
import type { ToolRegistry } from './tool-registry';

/** A tool call as a model produced it: arguments still the raw text from the stream. */
export interface RawToolCall {
  toolCallId: string;
  toolName: string;
  /** Argument JSON text as streamed, or an already parsed value. */
  input: unknown;
  /** What the provider attached to the call: kept with it and sent back with it. */
  providerMetadata?: ProviderMetadata;
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
export function prepareCall(args: {
  registry: ToolRegistry;
  raw: RawToolCall;
  position: number;
  responseIndex: number;
  usedIds: ReadonlySet<string>;
  /** Larger arguments are not run and not kept (see `limitsConfigSchema`). */
  maxArgumentBytes?: number;
}): PreparedCall {
  const call = prepareWithoutMetadata(args);
  // Whatever became of the call, the provider's metadata for it goes back with it.
  if (args.raw.providerMetadata) call.providerMetadata = args.raw.providerMetadata;
  return call;
}

function prepareWithoutMetadata({
  registry,
  raw,
  position,
  responseIndex,
  usedIds,
  maxArgumentBytes,
}: Parameters<typeof prepareCall>[0]): PreparedCall {
  const oversized =
    maxArgumentBytes === undefined ? undefined : oversizedArguments(raw.input, maxArgumentBytes);
  if (oversized !== undefined) {
    const id = raw.toolCallId.trim();
    const toolCallId =
      id === '' || usedIds.has(id) ? uniqueId(`call_r${responseIndex}_${position}`, usedIds) : id;
    return reject(
      {
        toolName: raw.toolName,
        toolCallId,
        // The arguments stay out of the transcript: carried on, they would be sent again with
        // every later request and written to history each time.
        input: { omitted: `arguments of ${oversized} bytes, over the limit of ${maxArgumentBytes}` },
      },
      'arguments-too-large',
      `the arguments for ${raw.toolName} are ${oversized} bytes, over this turn's limit of ${maxArgumentBytes} bytes (maxArgumentBytes); the call was not run — send smaller arguments (e.g. a path or a range instead of the content)`,
    );
  }
  const input = parseArguments(raw.input);
  const base = { toolName: raw.toolName, input: input.ok ? input.value : raw.input };
  const id = raw.toolCallId.trim();
  if (id === '' || usedIds.has(id)) {
    const fresh = uniqueId(`call_r${responseIndex}_${position}`, usedIds);
    const what =
      id === ''
        ? 'the model sent a tool call without an id'
        : `the tool call id ${quoted(id)} was already used in this turn`;
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
  // A literal, not a spread of `base`: this runs for every call, and object spread is slow in V8.
  const call: PreparedCall = {
    toolName: base.toolName,
    input: base.input,
    toolCallId: id,
    policy: evaluatePolicy(tool, parsed.data),
  };
  if (call.policy.requiresApproval) call.inputSchema = toolJsonSchema(tool);
  return call;
}

export function evaluatePolicy(tool: AnyTool, args: unknown): CallPolicy {
  return {
    concurrencySafe:
      typeof tool.concurrencySafe === 'function'
        ? safely(() => (tool.concurrencySafe as (a: unknown) => boolean)(args), false)
        : (tool.concurrencySafe ?? false),
    resources: tool.resources ? safely(() => [...(tool.resources?.(args) ?? [])].map(String), []) : [],
    retry: retryPolicyOf(tool),
    timeoutMs: tool.timeoutMs,
    retrySafe: tool.retrySafe ?? false,
    requiresApproval:
      typeof tool.requiresApproval === 'function'
        ? safely(() => (tool.requiresApproval as (a: unknown) => boolean)(args), true)
        : (tool.requiresApproval ?? false),
    ...(tool.quick && tool.retrySafe && { quick: true }),
    ...(tool.session !== undefined && !tool.quick && { session: tool.session }),
    ...(tool.background !== undefined && {
      background:
        typeof tool.background === 'function'
          ? safely(() => (tool.background as (a: unknown) => boolean)(args), false)
          : tool.background,
    }),
  };
}

/** A tool's retry policy with defaults filled in, parsed once per tool rather than once per call. */
const retryPolicies = new WeakMap<AnyTool, RetryPolicy>();
function retryPolicyOf(tool: AnyTool): RetryPolicy {
  let policy = retryPolicies.get(tool);
  if (!policy) {
    policy = retryPolicySchema.parse(tool.retry ?? {});
    retryPolicies.set(tool, policy);
  }
  return policy;
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

/** The size of the arguments in bytes of UTF-8 JSON when it is over `limit`, else undefined. */
function oversizedArguments(input: unknown, limit: number): number | undefined {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = JSON.stringify(input) ?? '';
    } catch {
      return undefined;
    }
  }
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit: count exactly only when the length cannot decide.
  if (text.length * 3 <= limit) return undefined;
  const bytes = utf8Length(text);
  return bytes > limit ? bytes : undefined;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

function uniqueId(base: string, used: ReadonlySet<string>): string {
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
  return id;
}
