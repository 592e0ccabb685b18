import type { TemporalKit } from '../temporal/support/kit';
import type { TurnHost } from './run-conversation';
import { replayModelRetry } from './turn-hosts';

/**
 * Turns run on Temporal: a worker of the test's own, on a task queue of its own (the suite's
 * server is shared by every test worker), for as long as the conversation runs.
 */
export function temporalHost(kit: TemporalKit): TurnHost {
  return async ({ tools, model }, use) => {
    const taskQueue = kit.taskQueue('provider-stream-replay');
    const worker = await kit.worker({ taskQueue, tools, model });
    return worker.runUntil(() =>
      use(async ({ turnId, input }) => {
        const turn = await kit
          .client(taskQueue)
          .start({ turnId, input, model: model.name, modelRetry: replayModelRetry });
        return turn.result();
      }),
    );
  };
}
