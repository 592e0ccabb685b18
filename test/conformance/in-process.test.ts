import { InProcessExecutor } from 'durable-turns';
import type { ConformanceHarness } from './harness';
import { conformanceSuite } from './suite';

const inProcess: ConformanceHarness = {
  name: 'in-process',
  async start(spec) {
    const controller = new AbortController();
    const executor = new InProcessExecutor({
      tools: spec.tools,
      model: spec.model,
      ...(spec.dispatch ? { dispatch: spec.dispatch } : {}),
      ...(spec.budget ? { budget: spec.budget } : {}),
      ...(spec.detection ? { detection: spec.detection } : {}),
      ...(spec.hooks ? { hooks: spec.hooks } : {}),
      ...(spec.observers ? { observers: spec.observers } : {}),
      ...(spec.health ? { health: spec.health } : {}),
      ...(spec.approver ? { approver: spec.approver } : {}),
      ...(spec.approvals ? { approvals: spec.approvals } : {}),
    });
    const result = executor.runTurn(
      { turnId: spec.turnId, input: spec.input },
      { signal: controller.signal },
    );
    return {
      result,
      cancel: async (reason) => controller.abort(reason ?? 'cancelled by the test'),
    };
  },
};

conformanceSuite(inProcess);
