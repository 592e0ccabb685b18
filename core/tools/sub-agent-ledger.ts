import { addSpent } from '../budget/budget-check';
import type { SubAgentSpent } from '../schema/tool-output';
import type { SubAgentAnswer, SubAgentRun, SubAgents } from './sub-agents';

/**
 * The host's sub-agents as one attempt's tool sees them (`ToolContext.agents`), writing down what
 * each turn it runs spent, by turn id: asking for the same turn again (a tool that attaches to it
 * twice) counts it once, at what it spent last. The attempt's result carries the total
 * (`AttemptResult.spent`), which the engine charges to the calling turn: the charge comes from
 * what the host ran, not from anything the tool says.
 */
export class SubAgentLedger {
  private readonly runs = new Map<string, SubAgentSpent>();
  readonly agents: SubAgents;

  constructor(host: SubAgents) {
    this.agents = {
      run: async (run: SubAgentRun, signal: AbortSignal): Promise<SubAgentAnswer> => {
        const answer = await host.run(run, signal);
        this.runs.set(run.turnId, spentOf(answer));
        return answer;
      },
    };
  }

  /** What the turns run so far spent together (undefined: none ran to an answer). */
  total(): SubAgentSpent | undefined {
    let total: SubAgentSpent | undefined;
    for (const spent of this.runs.values()) total = total ? addSpent(total, spent) : spent;
    return total;
  }
}

/**
 * What a sub-agent's answer says its turn spent, as whole counts (a host's answer without them —
 * one of an older release — spent nothing that can be told).
 */
export function spentOf(answer: Partial<Pick<SubAgentAnswer, 'modelResponses' | 'toolCalls' | 'usage'>>) {
  return {
    modelResponses: count(answer.modelResponses),
    toolCalls: count(answer.toolCalls),
    usage: { inputTokens: count(answer.usage?.inputTokens), outputTokens: count(answer.usage?.outputTokens) },
  } satisfies SubAgentSpent;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}
