import { InProcessExecutor, type ScriptedStep, scriptedModel, type TurnResult } from 'durable-turns';
import { check, type Trial } from '../measure';
import { ExecutionCounter, noopTool } from '../noop-tool';
import { PEER_FINAL_TEXT, PEER_INPUT, PEER_TOOL_CALLS, peerBatches } from './peer-script';

/** Defined once, as an application would; each trial resets the count. */
const counter = new ExecutionCounter();
const tools = [noopTool(counter)];

/** The peer turn on our InProcessExecutor, parallel dispatch, everything else at its default. */
export function oursTrial(): Trial {
  counter.count = 0;
  const steps: ScriptedStep[] = [
    ...peerBatches().map((batch) => ({
      toolCalls: batch.map((c) => ({ id: c.id, name: 'noop', args: c.args })),
    })),
    { text: PEER_FINAL_TEXT },
  ];
  const model = scriptedModel(steps);
  const executor = new InProcessExecutor({
    tools,
    model,
    dispatch: { mode: 'parallel', maxConcurrency: Math.max(...peerBatches().map((b) => b.length)) },
  });
  let result: TurnResult | undefined;
  return {
    run: async () => {
      result = await executor.runTurn({ turnId: 'peer-turn', input: PEER_INPUT });
    },
    verify: () => {
      check(result?.status === 'completed', `ours: turn ended ${result?.status} (${result?.reason ?? ''})`);
      check(result.text === PEER_FINAL_TEXT, `ours: final text ${JSON.stringify(result.text)}`);
      check(counter.count === PEER_TOOL_CALLS, `ours: ${counter.count} of ${PEER_TOOL_CALLS} tools executed`);
      check(
        result.outputs.length === PEER_TOOL_CALLS && result.outputs.every((o) => o.status === 'ok'),
        'ours: every call has an ok output',
      );
      model.assertConsumed();
    },
  };
}
