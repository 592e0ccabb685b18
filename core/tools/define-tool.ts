import type { z } from 'zod';
import type { RetryPolicyInput } from '../schema/retry-policy';

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
}

/** A tool of any argument type, as registries hold them. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of many argument types; each is checked by its own schema.
export type AnyTool = ToolDefinition<z.ZodType, any>;

/** Declares a tool; the identity function that gives `execute` typed arguments. */
export function defineTool<Schema extends z.ZodType, Result>(
  definition: ToolDefinition<Schema, Result>,
): ToolDefinition<Schema, Result> {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(definition.name)) {
    throw new Error(
      `tool name ${JSON.stringify(definition.name)} is not valid: use 1-64 letters, digits, '_' or '-' (providers require it)`,
    );
  }
  return definition;
}
