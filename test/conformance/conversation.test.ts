import { InProcessConversations, InProcessExecutor } from 'durable-turns';
import { pollFor } from '../temporal/support/poll';
import { conversationCases, conversationModel, conversationTools } from './conversation.cases';

const executor = new InProcessExecutor({
  tools: conversationTools,
  model: conversationModel,
  blobStore: false,
  tracing: false,
});
const conversations = new InProcessConversations({ executor });

conversationCases({
  name: 'in-process',
  send: (id, message, options) => conversations.send(id, message, options),
  turnResult: async (id, n) => {
    await pollFor(`turn ${n} of ${id} to start`, async () =>
      (await conversations.state(id)).turnCount >= n ? true : undefined,
    );
    return conversations.turnResult(id, n);
  },
  state: (id) => conversations.state(id),
  transcript: (id) => conversations.transcript(id),
  close: (id) => conversations.close(id),
});
