import { ConversationClient } from '../client/conversation-client';
import type { ConnectedClient } from './connect-client';
import type { Output } from './output';
import { shortId } from './render/short-text';
import { tableLines } from './render/table-lines';

/** `list --conversations`: the task queue's conversations, newest first, from Visibility. */
export async function listConversations({
  connected,
  output,
  limit,
  search,
}: {
  connected: ConnectedClient;
  output: Output;
  limit: number;
  search?: string | undefined;
}): Promise<void> {
  const { conversations } = await new ConversationClient(connected.client).list({
    pageSize: limit,
    ...(search ? { search } : {}),
  });
  if (output.json) {
    output.jsonLine({ namespace: connected.namespace, conversations });
    return;
  }
  if (conversations.length === 0) {
    output.progress(`no conversations match in namespace ${connected.namespace}`);
    return;
  }
  const utc = (date: Date) => date.toISOString().replace('T', ' ').slice(0, 19);
  const table = tableLines({
    header: ['CONVERSATION', 'STATUS', 'BEGAN (UTC)', 'CLOSED (UTC)'],
    rows: conversations.map((c) => [
      shortId(c.conversationId),
      c.status,
      utc(c.startTime),
      c.closeTime ? utc(c.closeTime) : '-',
    ]),
  });
  output.result(output.resultColors.bold(table.header));
  for (const row of table.rows) output.result(row);
}
