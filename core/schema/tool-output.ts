import { z } from 'zod';
import { filePartSchema } from './media';
import { usageSchema } from './usage';

/**
 * What the sub-agent turns a call ran spent (`agentTool`; each turn's whole spending, its own
 * sub-agents' included): the host records it as it runs them, and the engine charges it to the
 * calling turn's budget with the call's output. Bookkeeping: the model is not told.
 */
export const subAgentSpentSchema = z.object({
  modelResponses: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  usage: usageSchema,
});
export type SubAgentSpent = z.infer<typeof subAgentSpentSchema>;

/**
 * The one output every tool call gets. `interrupted` means the call did not finish (cancelled,
 * budget exhausted, loop stop, outcome unknown after a crash); `error` means it finished badly.
 */
export const toolOutputStatusSchema = z.enum(['ok', 'error', 'interrupted']);
export type ToolOutputStatus = z.infer<typeof toolOutputStatusSchema>;

export const toolOutputSchema = z.object({
  status: toolOutputStatusSchema,
  /** What the model sees: the tool's JSON-serialisable result, or the error text. */
  content: z.unknown(),
  /** How many attempts ran (0 when the call never started). */
  attempts: z.number().int().nonnegative(),
  /** Set for errors: what kind (e.g. `invalid-arguments`, `timeout`, `circuit-open`). */
  errorType: z.string().optional(),
  /** A note for the model added by the engine (e.g. a loop warning). */
  notice: z.string().optional(),
  /** Set when the content was cut to keep within payload limits. */
  truncated: z.boolean().optional(),
  /** Files the tool returned with its result (a screenshot, a PDF): the model sees them after the content. */
  files: z.array(filePartSchema).optional(),
  /** An approver edited the call's arguments: it ran with `input` (the model's call is kept as it made it). */
  ranWith: z.object({ input: z.unknown(), by: z.string().optional() }).optional(),
  /** The call did not run: an approver answered in its place (`respond`), and `content` is their text. */
  answeredBy: z.string().optional(),
  /** What the sub-agents it ran spent, charged to this turn's budget (see `SubAgentSpent`). */
  spent: subAgentSpentSchema.optional(),
});
export type ToolOutput = z.infer<typeof toolOutputSchema>;

/** A tool output as the model reads it: the content as text, then any notice. */
export function renderToolOutput(output: ToolOutput): string {
  const body = typeof output.content === 'string' ? output.content : JSON.stringify(output.content ?? null);
  const prefix =
    output.status === 'ok' ? '' : `[${output.status}${output.errorType ? `: ${output.errorType}` : ''}] `;
  // The model's call is kept as it made it, so the model is told which arguments ran.
  const edited = output.ranWith
    ? `\n\n[an approver${output.ranWith.by ? ` (${output.ranWith.by})` : ''} edited the arguments; the call ran with ${JSON.stringify(output.ranWith.input ?? null)}]`
    : '';
  return output.notice ? `${prefix}${body}${edited}\n\n${output.notice}` : `${prefix}${body}${edited}`;
}

/** A copy of an output, optionally without its notice (faster than a spread on this hot path). */
export function copyOutput(from: ToolOutput, { withNotice = true } = {}): ToolOutput {
  const output: ToolOutput = { status: from.status, content: from.content, attempts: from.attempts };
  if (from.errorType !== undefined) output.errorType = from.errorType;
  if (withNotice && from.notice !== undefined) output.notice = from.notice;
  if (from.truncated !== undefined) output.truncated = from.truncated;
  if (from.files !== undefined) output.files = from.files;
  if (from.ranWith !== undefined) output.ranWith = from.ranWith;
  if (from.answeredBy !== undefined) output.answeredBy = from.answeredBy;
  if (from.spent !== undefined) output.spent = from.spent;
  return output;
}
