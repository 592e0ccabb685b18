import type { UserMessage } from '../schema/messages';
import { userMessageSchema } from '../schema/messages';
import { describeThrown } from '../tools/describe-thrown';
import type { ConversationHookEvent, ConversationHooks } from './conversation-hooks';

/**
 * What the hooks made of an event: go on (with the message as the prompt-submit hooks left it), or
 * refuse it, naming the hook and why. `warnings` are hooks that threw under `warn`.
 */
export type ConversationHookOutcome =
  | { kind: 'go-on'; message?: UserMessage; warnings: string[] }
  | { kind: 'refuse'; hook: string; reason: string; warnings: string[] };

/**
 * Runs the hooks of one event, in order, those whose matcher takes the conversation: each
 * prompt-submit hook sees the message as the ones before it left it. A hook that throws — or gives
 * a decision that cannot be read — is handled by its `onError` policy (see `ConversationHooks`).
 */
export async function runConversationHooks(
  hooks: readonly ConversationHooks[],
  event: ConversationHookEvent,
): Promise<ConversationHookOutcome> {
  const warnings: string[] = [];
  let message = event.kind === 'promptSubmit' ? event.message : undefined;
  for (const [index, hook] of hooks.entries()) {
    if (!matches(hook, event.conversationId)) continue;
    const name = hook.name ?? `#${index}`;
    try {
      if (event.kind === 'promptSubmit' && message) {
        const decision = await hook.promptSubmit?.({ ...event, message });
        if (!decision || decision.action === 'allow') continue;
        if (decision.action === 'block')
          return { kind: 'refuse', hook: name, reason: decision.reason, warnings };
        if (decision.action === 'rewrite') message = rewritten(decision.message);
        else throw new Error(`unknown decision ${JSON.stringify(decision)}`);
      } else if (event.kind === 'sessionStart')
        await hook.sessionStart?.({ conversationId: event.conversationId });
      else if (event.kind === 'turnEnd') {
        const { kind: _kind, ...ctx } = event;
        await hook.turnEnd?.(ctx);
      } else if (event.kind === 'sessionEnd') {
        const { kind: _kind, ...ctx } = event;
        await hook.sessionEnd?.(ctx);
      }
    } catch (error) {
      const policy = hook.onError ?? 'block';
      const why = `conversation hook ${name} (${event.kind}) failed: ${describeThrown(error, 'it').message}`;
      const canRefuse = event.kind === 'promptSubmit' || event.kind === 'sessionStart';
      if (policy === 'block' && canRefuse) return { kind: 'refuse', hook: name, reason: why, warnings };
      if (policy !== 'allow') warnings.push(why);
    }
  }
  return { kind: 'go-on', ...(message ? { message } : {}), warnings };
}

function matches(hook: ConversationHooks, conversationId: string): boolean {
  const { matcher } = hook;
  if (matcher === undefined) return true;
  if (typeof matcher === 'string') return matcher === conversationId;
  if (matcher instanceof RegExp)
    return new RegExp(matcher.source, matcher.flags.replace('g', '')).test(conversationId);
  return matcher(conversationId);
}

/** A rewrite is a user message like any sent: checked as one. */
function rewritten(message: UserMessage | string): UserMessage {
  const parsed = userMessageSchema.safeParse(
    typeof message === 'string' ? { role: 'user', content: message } : message,
  );
  if (!parsed.success) throw new Error(`its rewrite is not a user message: ${parsed.error.message}`);
  return parsed.data;
}
