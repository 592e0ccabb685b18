import type { z } from 'zod';
import type { RetryPolicyInput } from '../schema/retry-policy';
import type { SubAgents } from './sub-agents';

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  turnId: string;
  toolCallId: string;
  /** Stable across retries, recoveries and hosts: `<turnId>/<toolCallId>`. Use it to make effects exactly-once. */
  idempotencyKey: string;
  attempt: number;
  /** Fires when the turn is cancelled or the attempt timed out. */
  signal: AbortSignal;
  /** Tells the host the tool is alive (on Temporal this is the activity heartbeat). */
  heartbeat(details?: unknown): void;
  /**
   * The session the call belongs to, for a tool that keeps state per session (an MCP server's
   * `conversation` sessions): every turn of a conversation has the same key
   * (`conversationSessionKey`). Absent for a standalone turn.
   */
  session?: ToolSession;
  /** Runs sub-agent turns (`agentTool`); absent on a host that runs none. */
  agents?: SubAgents;
}

/** Which session a call belongs to (see `ToolContext.session`). */
export interface ToolSession {
  key: string;
  /**
   * The session-keeping servers (`ToolDefinition.session`) this key's calls reached before, on any
   * host: a host that has no session for the key knows it is opening one anew, not a first one.
   */
  opened?: string[];
  /**
   * On Temporal, for a call to a session-keeping server: whether this worker holds the key's
   * current sessions, as the turn knows (absent in process). A session this worker has that is not
   * the current one is stale (the conversation moved on elsewhere), and is opened anew.
   */
  here?: boolean;
  /** Which holder the turn takes to be current (opaque): sessions opened for the same one are shared. */
  holder?: string;
}

/**
 * A function type checked bivariantly in its argument (method syntax), so a tool over specific
 * arguments still fits a registry of tools over any arguments. Each call's arguments are checked by
 * the tool's own schema before these run.
 */
type ArgsFn<Args, R> = { fn(args: Args): R }['fn'];

export interface ToolDefinition<Schema extends z.ZodType = z.ZodType, Result = unknown> {
  name: string;
  description: string;
  input: Schema;
  /**
   * What the model is told of the arguments, when the tool came with a JSON Schema of its own (an
   * MCP server's tool): sent as given instead of a conversion of `input`, which still checks them.
   */
  inputJsonSchema?: Record<string, unknown>;
  execute(args: z.infer<Schema>, ctx: ToolContext): Promise<Result> | Result;
  /** May run beside other calls (default false: a non-safe call is a barrier). */
  concurrencySafe?: boolean | ArgsFn<z.infer<Schema>, boolean>;
  /** Keys the call touches (e.g. `file:/a.txt`); two safe calls whose keys overlap do not share a wave. */
  resources?: ArgsFn<z.infer<Schema>, readonly string[]>;
  retry?: RetryPolicyInput;
  timeoutMs?: number;
  /** May run again after a crash left its outcome unknown (default false). */
  retrySafe?: boolean;
  requiresApproval?: boolean | ArgsFn<z.infer<Schema>, boolean>;
  /**
   * Runs in the background (default false): the turn goes on while it runs — the model is told at
   * once that it started, and gets its output in a later message when it finishes — for tools that
   * take minutes or days (a build, a crawl, a task for a person). Give it a `timeoutMs` to match.
   */
  background?: boolean | ArgsFn<z.infer<Schema>, boolean>;
  /**
   * Runs without a task round trip of its own (default false): on Temporal, as a local activity in
   * the workflow's worker, which costs a few milliseconds instead of a server dispatch. For short,
   * retry-safe tools only: a local activity leaves no record before it runs, so after a crash it
   * runs again (with the same idempotency key) rather than being reported as outcome unknown. It
   * must set a `timeoutMs` of at most `maxQuickTimeoutMs`: while it runs it holds the turn's
   * workflow task, so a cancel, an approval or a query waits for it.
   */
  quick?: boolean;
  /**
   * The server whose session the tool's calls share (an MCP server with `conversation` sessions):
   * on Temporal a conversation's calls to it go to the worker that holds its session.
   */
  session?: string;
}

/** A tool of any argument type, as registries hold them. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of many argument types; each is checked by its own schema.
export type AnyTool = ToolDefinition<z.ZodType, any>;

/** The longest a quick tool may run (see `ToolDefinition.quick`). */
export const maxQuickTimeoutMs = 10_000;

/** Declares a tool; the identity function that gives `execute` typed arguments. */
export function defineTool<Schema extends z.ZodType, Result>(
  definition: ToolDefinition<Schema, Result>,
): ToolDefinition<Schema, Result> {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(definition.name)) {
    throw new Error(
      `tool name ${JSON.stringify(definition.name)} is not valid: use 1-64 letters, digits, '_' or '-' (providers require it)`,
    );
  }
  if (definition.quick && !definition.retrySafe) {
    throw new Error(
      `tool ${definition.name} is quick but not retry-safe: a quick call leaves no record before it runs and runs again after a crash, so it must be safe to repeat (set retrySafe: true, or drop quick)`,
    );
  }
  if (definition.quick && (definition.timeoutMs === undefined || definition.timeoutMs > maxQuickTimeoutMs)) {
    throw new Error(
      `tool ${definition.name} is quick, so it must set timeoutMs of at most ${maxQuickTimeoutMs} ms (it has ${definition.timeoutMs ?? 'none'}): a quick call holds its turn's workflow task while it runs, and a cancel, an approval or a query waits for it`,
    );
  }
  if (definition.quick && definition.background !== undefined && definition.background !== false) {
    throw new Error(
      `tool ${definition.name} is quick and runs in the background: a quick call runs inside the turn's own task, so it cannot outlive a response (drop one of them)`,
    );
  }
  return definition;
}
