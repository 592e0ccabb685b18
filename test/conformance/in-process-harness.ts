import { InProcessConversations, InProcessExecutor, MemoryJournal } from 'durable-turns';
import type { ConformanceHarness } from './harness';

/** One journal for every case's executor: a fork reads the turn it forks from it. */
const journal = new MemoryJournal();

/** Runs each case with an `InProcessExecutor` of its own. */
export const inProcessHarness: ConformanceHarness = {
  name: 'in-process',
  async start(spec) {
    const controller = new AbortController();
    const executor = new InProcessExecutor({
      journal,
      tools: spec.tools,
      ...(spec.mcp ? { mcp: spec.mcp } : {}),
      model: spec.model,
      ...(spec.dispatch ? { dispatch: spec.dispatch } : {}),
      ...(spec.budget ? { budget: spec.budget } : {}),
      ...(spec.detection ? { detection: spec.detection } : {}),
      ...(spec.hooks ? { hooks: spec.hooks } : {}),
      ...(spec.observers ? { observers: spec.observers } : {}),
      ...(spec.health ? { health: spec.health } : {}),
      ...(spec.approver ? { approver: spec.approver } : {}),
      ...(spec.approvals ? { approvals: spec.approvals } : {}),
      ...(spec.modelRetry ? { modelRetry: spec.modelRetry } : {}),
      ...(spec.timeouts ? { timeouts: spec.timeouts } : {}),
      ...(spec.limits ? { limits: spec.limits } : {}),
      ...(spec.compaction ? { compaction: spec.compaction } : {}),
    });
    const result = spec.fork
      ? executor.forkTurn({ ...spec.fork, turnId: spec.turnId }, { signal: controller.signal })
      : executor.runTurn(
          { turnId: spec.turnId, input: spec.input, ...(spec.output ? { output: spec.output } : {}) },
          { signal: controller.signal },
        );
    return {
      result,
      // Without a reason the executor says what the Temporal host says: 'the turn was cancelled'.
      cancel: async (reason) => (reason ? controller.abort(reason) : controller.abort()),
      watch: (options) => executor.watch(spec.turnId, options),
      steer: async (messageId, text) => executor.steer(spec.turnId, { messageId, message: text }),
      grant: async (grant) => executor.grant(spec.turnId, grant),
      revoke: async (grantId) => executor.revoke(spec.turnId, { grantId }),
    };
  },
  async converse({ conversationId, tools, mcp, model }) {
    const conversations = new InProcessConversations({
      executor: new InProcessExecutor({ tools, ...(mcp ? { mcp } : {}), model }),
    });
    let turns = 0;
    return {
      say: async (messageId, text) => {
        await conversations.send(conversationId, text, { messageId });
        turns += 1;
        const result = await conversations.turnResult(conversationId, turns);
        await conversations.idle(conversationId);
        return result;
      },
      end: async () => {
        await conversations.close(conversationId);
      },
    };
  },
};
