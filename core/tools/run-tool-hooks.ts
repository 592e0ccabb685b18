import type { PreToolDecision, ToolHookContext, TurnHooks } from '../hooks/turn-hooks';
import { notifyObservers, type TurnObserver } from '../hooks/turn-observer';
import type { AttemptResult } from '../schema/attempt-result';
import { errorOutput } from './attempt-outputs';
import { describeThrown } from './describe-thrown';
import { stableHash } from './stable-hash';
import { toJson } from './to-json';

export type PreOutcome =
  | { kind: 'run'; args: unknown }
  | { kind: 'block'; hook: string; reason: string }
  | { kind: 'ask'; reason: string };

/** The part of an attempt's arguments hooks need (the attempt's own arguments are passed as they are). */
interface HookRun {
  hooks?: readonly TurnHooks[];
  observers?: readonly TurnObserver[];
  /** The call was approved by a person, so an `ask` from a hook is already answered. */
  approved?: boolean;
}

/**
 * Runs the pre-tool hooks in order; each sees the arguments as the ones before it left them. A
 * hook that throws — whatever it throws, or a decision that cannot be read — is handled by its
 * `onError` policy, like any other failure of that hook.
 */
export async function runPreHooks(run: HookRun, ctx: ToolHookContext): Promise<PreOutcome> {
  let current = ctx.args;
  for (const [index, hook] of (run.hooks ?? []).entries()) {
    if (!hook.preTool) continue;
    const name = hook.name ?? `#${index}`;
    try {
      const decision: PreToolDecision | undefined = await hook.preTool({ ...ctx, args: current });
      // Read inside the guard: a decision is the hook's value, as able to throw as the hook.
      if (!decision || decision.action === 'allow') continue;
      if (decision.action === 'block') return { kind: 'block', hook: name, reason: decision.reason };
      if (decision.action === 'mutate') current = decision.args;
      if (decision.action === 'ask' && !run.approved)
        return { kind: 'ask', reason: decision.reason ?? `hook ${name} asks for approval` };
    } catch (error) {
      const policy = hook.onError ?? 'block';
      if (policy === 'block') {
        return {
          kind: 'block',
          hook: name,
          reason: `the hook failed: ${describeThrown(error, 'it').message}`,
        };
      }
      if (policy === 'warn') warn(run, ctx, name, error);
    }
  }
  return { kind: 'run', args: current };
}

/** Runs the post-tool hooks in order; each may replace the content the model will see. */
export async function runPostHooks(
  run: HookRun,
  ctx: ToolHookContext,
  result: AttemptResult,
): Promise<AttemptResult> {
  let current = result;
  for (const [index, hook] of (run.hooks ?? []).entries()) {
    if (!hook.postTool) continue;
    try {
      const decision = await hook.postTool({ ...ctx, result: current });
      if (decision && 'replaceContent' in decision) {
        const content = toJson(decision.replaceContent);
        current =
          current.status === 'error'
            ? {
                ...current,
                content: typeof content === 'string' ? content : JSON.stringify(content),
                resultHash: stableHash(content),
              }
            : { status: 'ok', content, resultHash: stableHash(content) };
      }
    } catch (error) {
      const policy = hook.onError ?? 'block';
      const name = hook.name ?? `#${index}`;
      if (policy === 'block') {
        const content = `post-tool hook ${name} failed: ${describeThrown(error, 'it').message}`;
        return errorOutput('hook-failed', content, false, content);
      }
      if (policy === 'warn') warn(run, ctx, name, error);
    }
  }
  return current;
}

function warn(run: HookRun, ctx: ToolHookContext, hook: string, error: unknown): void {
  notifyObservers(run.observers ?? [], 'onHookWarning', {
    turnId: ctx.turnId,
    toolCallId: ctx.toolCallId,
    hook,
    error: describeThrown(error, 'the hook').message,
  });
}
