import { z } from 'zod';
import { filePartSchema } from './media';
import { subAgentSpentSchema } from './tool-output';

/** What one attempt of a tool call came to. The engine decides from it whether to retry. */
export const attemptResultSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('ok'),
    content: z.unknown(),
    resultHash: z.string(),
    truncated: z.boolean().optional(),
    /** Files the tool returned, as the host kept them (inline or by blob reference). */
    files: z.array(filePartSchema).optional(),
    /** What the sub-agent turns the attempt ran spent (set by the host, never by the tool). */
    spent: subAgentSpentSchema.optional(),
  }),
  z.object({
    status: z.literal('error'),
    content: z.string(),
    errorType: z.string(),
    retryable: z.boolean(),
    resultHash: z.string(),
    truncated: z.boolean().optional(),
    /** As for `ok`: a sub-agent that ended failed or out of budget still spent what it spent. */
    spent: subAgentSpentSchema.optional(),
  }),
  /** The attempt did not finish: aborted, or its host was lost and it may not be run again. */
  z.object({ status: z.literal('interrupted'), content: z.string(), errorType: z.string() }),
  /** A pre-tool hook asked for approval before the tool may run. */
  z.object({
    status: z.literal('needs-approval'),
    reason: z.string(),
    /** The JSON Schema of the tool's arguments, against which an approver's edit is checked. */
    inputSchema: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export type AttemptResult = z.infer<typeof attemptResultSchema>;
