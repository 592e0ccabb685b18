import type { AttemptResult } from '../schema/attempt-result';

export interface ToolHookContext {
  turnId: string;
  toolCallId: string;
  toolName: string;
  attempt: number;
  args: unknown;
}

/** What a pre-tool hook decides. Returning nothing means allow. */
export type PreToolDecision =
  | { action: 'allow' }
  | { action: 'block'; reason: string }
  | { action: 'mutate'; args: unknown }
  /** The call needs a person's approval before it runs. */
  | { action: 'ask'; reason?: string };

/** What a post-tool hook may do: replace the content the model will see. */
export type PostToolDecision = { replaceContent: unknown } | undefined;

/** What happens when a hook itself throws: block the call (default), let it run, or let it run and warn. */
export type HookErrorPolicy = 'block' | 'allow' | 'warn';

export interface TurnHooks {
  name?: string;
  preTool?(ctx: ToolHookContext): PreToolDecision | undefined | Promise<PreToolDecision | undefined>;
  postTool?(ctx: ToolHookContext & { result: AttemptResult }): PostToolDecision | Promise<PostToolDecision>;
  onError?: HookErrorPolicy;
}
