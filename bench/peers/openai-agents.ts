import {
  Agent,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type RunItem,
  Runner,
  type StreamEvent,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { z } from 'zod';
import { check, type Trial } from '../measure';
import { ExecutionCounter, NOOP_RESULT } from '../noop';
import { PEER_FINAL_TEXT, PEER_INPUT, PEER_MODEL_RESPONSES, PEER_TOOL_CALLS, peerBatches } from './script';

setTracingDisabled(true);
const runner = new Runner({ tracingDisabled: true });

/** A `Model` that answers the peer script, one response per request, and fails on an extra one. */
class ScriptedAgentsModel implements Model {
  requests = 0;
  private readonly responses: AgentOutputItem[][];

  constructor() {
    this.responses = [
      ...peerBatches().map((batch) =>
        batch.map(
          (c): AgentOutputItem => ({
            type: 'function_call',
            callId: c.id,
            name: 'noop',
            arguments: JSON.stringify(c.args),
            status: 'completed',
          }),
        ),
      ),
      [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: PEER_FINAL_TEXT }],
        },
      ],
    ];
  }

  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const output = this.responses[this.requests];
    this.requests += 1;
    if (!output) throw new Error(`openaiAgents: request ${this.requests} was not scripted`);
    return { usage: new Usage(), output };
  }

  getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
    throw new Error('openaiAgents: the benchmark runs the non-streaming loop');
  }
}

/** Defined once, as an application would; each trial resets the count. */
const counter = new ExecutionCounter();
const noop = tool({
  name: 'noop',
  description: 'Does nothing and answers "ok".',
  parameters: z.object({ i: z.number() }),
  execute: async () => {
    counter.count += 1;
    return NOOP_RESULT;
  },
});

/** The peer turn through the OpenAI Agents SDK `Runner` with a scripted `Model`. */
export function openaiAgentsTrial(): Trial {
  counter.count = 0;
  const model = new ScriptedAgentsModel();
  const agent = new Agent({ name: 'bench', instructions: 'Run the no-op tools.', model, tools: [noop] });
  let result: { finalOutput: unknown; newItems: RunItem[] } | undefined;
  return {
    run: async () => {
      result = await runner.run(agent, PEER_INPUT, { maxTurns: PEER_MODEL_RESPONSES + 2 });
    },
    verify: () => {
      check(result?.finalOutput === PEER_FINAL_TEXT, `openaiAgents: final output ${result?.finalOutput}`);
      check(model.requests === PEER_MODEL_RESPONSES, `openaiAgents: ${model.requests} model requests`);
      check(
        counter.count === PEER_TOOL_CALLS,
        `openaiAgents: ${counter.count} of ${PEER_TOOL_CALLS} tools executed`,
      );
      const outputs = result.newItems.filter((item) => item.type === 'tool_call_output_item');
      check(outputs.length === PEER_TOOL_CALLS, `openaiAgents: ${outputs.length} tool outputs`);
    },
  };
}
