import type {
  AnyTool,
  JournalEntry,
  ModelRequest,
  TurnConfigInput,
  TurnModel,
  TurnOutcome,
} from 'durable-turns';
import { buildModelResponse, type HostTimers, runToolAttempt, ToolRegistry, TurnEngine } from '../../../core';
import type { JournalSession } from '../../../executors/journal/turn-journal';
import { streamResponse, toolSpecs } from '../../../models';

export interface StepByStepRun {
  outcome: TurnOutcome;
  /** Every entry, as the journal holds them at the end. */
  entries: JournalEntry[];
  /** What each step did: `model#0`, `tools a#1,b#1`, `wait`. */
  steps: string[];
}

/**
 * Drives a turn by hand, the way a host that may die at any moment must: before every step the
 * engine is rebuilt from the journal (`load` → `TurnEngine.replay`), so nothing survives between
 * steps except what was persisted. Each step: `next(now)` → persist → do the operation with real
 * tools and the real model port → rebuild → feed the outcome → persist. Tool results of a wave are
 * fed in reverse order, one rebuild each, to show recording does not depend on arrival order.
 * The clock is a counter; a wait for a retry jumps it to the retry's due time.
 */
export async function driveStepByStep({
  turnId,
  input,
  tools,
  model,
  config,
  session,
}: {
  turnId: string;
  input: string;
  tools: readonly AnyTool[];
  model: TurnModel;
  config: TurnConfigInput;
  session: JournalSession;
}): Promise<StepByStepRun> {
  let now = 1_000_000;
  const timers: HostTimers = {
    now: () => now,
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  };
  const registry = new ToolRegistry(tools);
  let version = (await session.load()).version;
  const persist = async (entries: readonly JournalEntry[]) => {
    if (entries.length > 0) version = await session.append(entries, version);
  };
  const rebuild = async () => TurnEngine.replay((await session.load()).entries);
  const steps: string[] = [];

  await persist(TurnEngine.start({ turnId, input, config, now }).entries);
  for (;;) {
    now += 1;
    const engine = await rebuild();
    const step = engine.next(now);
    await persist(step.entries);
    const op = step.op;
    switch (op.kind) {
      case 'finished':
        return { outcome: op.outcome, entries: (await session.load()).entries, steps };
      case 'call-model': {
        steps.push(`model#${op.responseIndex}`);
        const request: ModelRequest = {
          turnId,
          responseIndex: op.responseIndex,
          messages: op.messages,
          tools: toolSpecs(registry),
          idempotencyKey: `${turnId}/model/${op.responseIndex}`,
        };
        const { collected, broken } = await streamResponse({ model, request });
        if (broken) throw broken;
        const fresh = await rebuild();
        const response = buildModelResponse({
          collected,
          registry,
          responseIndex: op.responseIndex,
          priorCallIds: fresh.view.callIds,
        });
        await persist(fresh.onModelResponded(response));
        break;
      }
      case 'run-tools': {
        steps.push(`tools ${op.starts.map((s) => `${s.call.toolCallId}#${s.attempt}`).join(',')}`);
        const ran = await Promise.all(
          op.starts.map(async (start) => ({
            start,
            ...(await runToolAttempt({
              turnId,
              call: start.call,
              attempt: start.attempt,
              approved: start.approved,
              registry,
              timers,
            })),
          })),
        );
        for (const { start, result, durationMs } of ran.reverse()) {
          now += 1;
          const fresh = await rebuild();
          await persist(
            fresh.onToolAttemptFinished({
              toolCallId: start.call.toolCallId,
              attempt: start.attempt,
              result,
              durationMs,
              now,
            }),
          );
        }
        break;
      }
      case 'compact':
        throw new Error('the step-by-step driver does not compact: its turns configure no compaction');
      case 'wait':
        // Every started call was run to its end above, so the only thing left to wait for is a retry.
        if (op.untilMs === undefined)
          throw new Error(`step-by-step driver asked to wait with nothing due: ${JSON.stringify(op)}`);
        steps.push('wait');
        now = op.untilMs;
        break;
      default:
        throw new Error(`unknown operation ${JSON.stringify(op satisfies never)}`);
    }
  }
}
