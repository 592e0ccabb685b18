import { z } from 'zod';
import { providerMetadataSchema } from './provider-metadata';
import { retryPolicySchema } from './retry-policy';

/**
 * A tool call as the engine plans with it: the model's call plus the tool's policy, evaluated once
 * for these arguments when the call was accepted and recorded with it, so replays and other hosts
 * plan the same waves even if the tool's code changes meanwhile.
 */
export const callPolicySchema = z.object({
  concurrencySafe: z.boolean(),
  resources: z.array(z.string()),
  retry: retryPolicySchema,
  timeoutMs: z.number().int().positive().optional(),
  retrySafe: z.boolean(),
  requiresApproval: z.boolean(),
  /**
   * Runs in the background: the model gets a tool result saying so at once, and the call's output
   * is delivered later, as a user message, at a model-request boundary (absent: false).
   */
  background: z.boolean().optional(),
  /** Runs without a task round trip of its own (a local activity on Temporal); retry-safe tools only. */
  quick: z.boolean().optional(),
  /**
   * The session-keeping server the call goes to (an MCP server with `conversation` sessions): on
   * Temporal its calls go to the worker that holds the conversation's session (absent: any worker).
   */
  session: z.string().optional(),
});

export const preparedCallSchema = z.object({
  toolCallId: z.string().min(1),
  toolName: z.string(),
  /** The arguments as the model sent them (parsed JSON, or the raw text when they were not JSON). */
  input: z.unknown(),
  policy: callPolicySchema,
  /** Set when the call cannot run (unknown tool, invalid arguments, bad id): its error output. */
  rejection: z.object({ errorType: z.string(), message: z.string() }).optional(),
  /** What the provider attached to the call (e.g. Gemini's thought signature): goes back with it. */
  providerMetadata: providerMetadataSchema.optional(),
  /**
   * A call that requires approval: the JSON Schema of its tool's arguments, recorded with it so an
   * approver's edited arguments are checked in the turn itself, on any host, before anything runs.
   */
  inputSchema: z.record(z.string(), z.unknown()).optional(),
});

export type CallPolicy = z.infer<typeof callPolicySchema>;
export type PreparedCall = z.infer<typeof preparedCallSchema>;

/**
 * What running one attempt needs of its call: the tool, the call's id and its arguments. The
 * engine's `ToolStart` gives the attempt its timeout, so the policy is read only when a host older
 * than that gives none.
 */
export type AttemptCall = Pick<PreparedCall, 'toolCallId' | 'toolName' | 'input'> & {
  policy?: Pick<CallPolicy, 'timeoutMs'>;
};
