import { z } from 'zod';
import { retryPolicySchema } from '../core/schema/retry-policy';

/** What may be set for one of a server's tools, over what its annotations say. */
export const mcpToolOverridesSchema = z
  .object({
    concurrencySafe: z.boolean().optional(),
    retrySafe: z.boolean().optional(),
    requiresApproval: z.boolean().optional(),
    timeoutMs: z.number().int().positive().optional(),
    retry: retryPolicySchema.partial().optional(),
    background: z.boolean().optional(),
  })
  .strict();
export type McpToolOverrides = z.infer<typeof mcpToolOverridesSchema>;

const stdioTransportSchema = z
  .object({
    type: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    /** Added to a minimal inherited environment (the SDK's: PATH, HOME, …): credentials go here, never into history. */
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
  })
  .strict();

const httpTransportSchema = z
  .object({
    type: z.literal('http'),
    url: z.url(),
    /** Sent with every request (e.g. `Authorization`); stays on the worker. */
    headers: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/**
 * An MCP server an agent uses. Its tools become ordinary tools named `<prefix><tool>` (prefix
 * `<name>_` by default). Its tools' annotations are hints from the server: they set policy only
 * when the server is `trusted`; otherwise every tool is treated as not concurrency-safe, not
 * retry-safe and needing approval, unless `tools` says otherwise.
 */
export const mcpServerConfigSchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{1,32}$/, "use 1-32 letters, digits, '_' or '-' (it prefixes the tools' names)"),
    transport: z.discriminatedUnion('type', [stdioTransportSchema, httpTransportSchema]),
    trusted: z.boolean().default(false),
    prefix: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{0,40}$/, "use at most 40 letters, digits, '_' or '-'")
      .optional(),
    /** Only these of the server's tools (by their MCP names); all when unset. */
    only: z.array(z.string()).optional(),
    /** Policy for every tool of the server, then per tool (by MCP name), over the annotations. */
    defaults: mcpToolOverridesSchema.optional(),
    tools: z.record(z.string(), mcpToolOverridesSchema).optional(),
    /** How long connecting and listing may take (default 30 s). */
    connectTimeoutMs: z.number().int().positive().default(30_000),
    /**
     * `shared` (default): one connection for every turn on this host, as MCP clients are meant to.
     * `conversation`: a session of its own for each conversation (for a standalone turn, the turn),
     * for a server that keeps state per session; over stdio, a server process each. Its tools are
     * still listed on one shared connection.
     */
    session: z.enum(['shared', 'conversation']).default('shared'),
    /** A `conversation` session closes after this long without a call (default 15 minutes). */
    sessionIdleMs: z
      .number()
      .int()
      .positive()
      .default(15 * 60_000),
    /** At most this many `conversation` sessions open at once: past it the least recently used closes (default 100). */
    maxSessions: z.number().int().positive().default(100),
  })
  .strict();
export type McpServerConfig = z.input<typeof mcpServerConfigSchema>;
export type ParsedMcpServerConfig = z.infer<typeof mcpServerConfigSchema>;
