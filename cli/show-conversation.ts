import { WorkflowNotFoundError } from '@temporalio/client';
import { ConversationClient } from '../client/conversation-client';
import { conversationWorkflowId } from '../contract/conversation-workflow';
import { userText } from '../core';
import type { ConnectedClient } from './connect-client';
import type { Output } from './output';
import { clip } from './render/short-text';

/**
 * `show` for a conversation (an id that names no turn but a conversation): its queue and each turn
 * in order — how it ended (or that it runs), what the user said, what the model last answered.
 * False when no conversation has the id.
 */
export async function showConversation({
  connected,
  conversationId,
  output,
}: {
  connected: ConnectedClient;
  conversationId: string;
  output: Output;
}): Promise<boolean> {
  const workflow = connected.client.client.workflow.getHandle(conversationWorkflowId(conversationId));
  try {
    await workflow.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
  const conversations = new ConversationClient(connected.client);
  const state = await conversations.state(conversationId);
  const turns = [];
  for (let n = 1; n <= state.turnCount; n++) {
    const turnId = `${conversationId}#${n}`;
    if (state.running?.turnId === turnId) {
      turns.push({ turnId, status: 'running' });
      continue;
    }
    const result = await conversations.turn(conversationId, n).result();
    const started = result.events[0];
    const said =
      started?.type === 'turn.started'
        ? started.input.flatMap((m) => (m.role === 'user' ? [userText(m)] : [])).join(' / ')
        : '';
    turns.push({ turnId, status: result.status, said, answer: result.text });
  }
  if (output.json) {
    output.jsonLine({ conversationId, state, turns });
    return true;
  }
  const c = output.resultColors;
  const waiting = state.next.length + state.queue.length;
  output.result(
    `conversation ${c.bold(conversationId)}: ${state.turnCount} turn${state.turnCount === 1 ? '' : 's'}` +
      `${state.running ? `, ${state.running.turnId} running` : ''}` +
      `${waiting > 0 ? `, ${waiting} message${waiting === 1 ? '' : 's'} waiting` : ''}` +
      `${state.closed ? ', closed' : ''}`,
  );
  for (const turn of turns) {
    output.result(`${turn.turnId} ${turn.status}`);
    if ('said' in turn && turn.said) output.result(`  user: ${clip({ text: turn.said, max: 200 })}`);
    if ('answer' in turn && turn.answer)
      output.result(`  assistant: ${clip({ text: turn.answer, max: 200 })}`);
  }
  return true;
}
