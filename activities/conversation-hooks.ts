import { Context } from '@temporalio/activity';
import {
  type ConversationHookEvent,
  type ConversationHookOutcome,
  type ConversationHooks,
  runConversationHooks,
} from '../core';

/**
 * The worker side of a conversation's hooks (`runConversationHooks`): a local activity of the
 * conversation's workflow, so each event's hooks run once (a replay reads the outcome from history).
 * Warnings (hooks that threw under `warn`) go to the worker's log.
 */
export function conversationHooksActivity({
  hooks,
}: {
  hooks: readonly ConversationHooks[];
}): (event: ConversationHookEvent) => Promise<ConversationHookOutcome> {
  return async function runHooks(event: ConversationHookEvent): Promise<ConversationHookOutcome> {
    if (hooks.length === 0) return { kind: 'go-on', warnings: [] };
    const outcome = await runConversationHooks(hooks, event);
    for (const warning of outcome.warnings) Context.current().log.warn(warning);
    return outcome;
  };
}
