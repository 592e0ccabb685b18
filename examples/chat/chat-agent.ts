import {
  defineTool,
  type Message,
  type ModelStreamPart,
  renderToolOutput,
  type TurnModel,
} from 'durable-turns';
import { z } from 'zod';

/**
 * The chat example's agent: one tool that waits for a person's approval, and a model that needs
 * no API key. It answers word by word (so the page shows text as it streams), offers to deploy
 * when asked ("deploy <service>"), and reports the deploy's output once it ran.
 */
export const chatTools = [
  defineTool({
    name: 'deploy',
    description: 'Deploys a service',
    input: z.object({ service: z.string() }),
    requiresApproval: true,
    execute: async ({ service }) => {
      await sleep(300);
      return `${service} is live`;
    },
  }),
];

export function chatModel({ wordDelayMs = 40 }: { wordDelayMs?: number } = {}): TurnModel {
  return {
    name: 'chat-demo',
    async *stream(request) {
      const last = request.messages[request.messages.length - 1];
      const words = (text: string) => wordByWord(text, wordDelayMs, request.signal);
      if (last?.role === 'tool') {
        const outputs = last.content.map((part) => renderToolOutput(part.output)).join('; ');
        yield* words(`Done: ${outputs}.`);
        yield finish('stop');
        return;
      }
      const said = last ? userText(last) : '';
      const deploy = /\bdeploy\s+([\w.-]+)/i.exec(said);
      if (deploy?.[1]) {
        yield* words(`I will deploy ${deploy[1]} once you approve.`);
        yield {
          type: 'tool-call',
          toolCallId: `deploy-${request.turnId}-${request.responseIndex}`,
          toolName: 'deploy',
          input: JSON.stringify({ service: deploy[1] }),
        };
        yield finish('tool-calls');
        return;
      }
      yield* words(`You said: ${said}. Say "deploy <service>" to see a call wait for your approval.`);
      yield finish('stop');
    },
  };
}

async function* wordByWord(
  text: string,
  delayMs: number,
  signal?: AbortSignal,
): AsyncGenerator<ModelStreamPart> {
  for (const [index, word] of text.split(' ').entries()) {
    if (index > 0) await sleep(delayMs);
    if (signal?.aborted) return;
    yield { type: 'text-delta', delta: index === 0 ? word : ` ${word}` };
  }
}

const finish = (finishReason: 'stop' | 'tool-calls'): ModelStreamPart => ({
  type: 'finish',
  finishReason,
  usage: { inputTokens: 0, outputTokens: 0 },
});

function userText(message: Message): string {
  if (message.role !== 'user') return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
