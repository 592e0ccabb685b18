import { InProcessConversations, InProcessExecutor } from 'durable-turns';
import { pollFor } from '../temporal/support/poll';
import {
  conversationApprovals,
  conversationCases,
  conversationHooks,
  conversationModel,
  conversationTools,
} from './conversation.cases';

const options = {
  tools: conversationTools,
  model: conversationModel,
  blobStore: false as const,
  tracing: false as const,
  approvals: conversationApprovals,
};
const plain = new InProcessConversations({
  executor: new InProcessExecutor(options),
  hooks: conversationHooks,
});
// Conversations whose turns compact: their executor is configured so (the first send names it).
const compacting = new InProcessConversations({
  executor: new InProcessExecutor({ ...options, compaction: { maxContextTokens: 1_000 } }),
  hooks: conversationHooks,
});
const compacted = new Set<string>();
const of = (id: string) => (compacted.has(id) ? compacting : plain);

conversationCases({
  name: 'in-process',
  send: (id, message, { compaction, ...options }) => {
    if (compaction) compacted.add(id);
    return of(id).send(id, message, options);
  },
  turnResult: async (id, n) => {
    await pollFor(`turn ${n} of ${id} to start`, async () =>
      (await of(id).state(id)).turnCount >= n ? true : undefined,
    );
    return of(id).turnResult(id, n);
  },
  state: (id) => of(id).state(id),
  transcript: (id) => of(id).transcript(id),
  close: (id) => of(id).close(id),
  delete: (id) => of(id).delete(id),
  watch: (id) => of(id).watch(id, { live: false }),
  list: async () => [...(await plain.list()), ...(await compacting.list())],
  grant: (id, grant) =>
    of(id)
      .grant(id, grant)
      .then(() => {}),
  revoke: (id, grantId) =>
    of(id)
      .revoke(id, { grantId })
      .then(() => {}),
  branch: (from, to) => of(from).branch(from, to),
});
