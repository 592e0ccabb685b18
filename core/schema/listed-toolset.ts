import { z } from 'zod';
import { stableHash } from '../tools/stable-hash';

/** A tool as a server listed it (MCP's `Tool`, the parts a turn needs). */
export const listedToolSchema = z.object({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: z
    .object({
      title: z.string().optional(),
      readOnlyHint: z.boolean().optional(),
      destructiveHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
    })
    .optional(),
});
export type ListedTool = z.infer<typeof listedToolSchema>;

/**
 * The tools a turn's servers listed, as the turn pinned them: every request and attempt of the
 * turn, on any worker, uses these, so a server that changes its list mid-turn changes the next
 * turn, not this one. `digest` names the list (the same list, the same digest, on every host).
 */
export const listedToolsetSchema = z.object({
  digest: z.string().min(1),
  servers: z.array(z.object({ name: z.string().min(1), tools: z.array(listedToolSchema) })),
});
export type ListedToolset = z.infer<typeof listedToolsetSchema>;

export function listedToolset(servers: ListedToolset['servers']): ListedToolset {
  return { digest: stableHash(servers), servers };
}
