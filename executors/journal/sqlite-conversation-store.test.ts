import { newConversation } from '../../core';
import { ConversationConflictError } from '../conversation/conversation-store';
import { SqliteConversationStore } from './sqlite-conversation-store';

describe('SqliteConversationStore', () => {
  test('deletes a conversation only at the version it expects; then the id is unknown and starts again at 0', async () => {
    const store = new SqliteConversationStore({ path: ':memory:' });
    try {
      const state = newConversation('support-42', 'first');
      expect(await store.save('support-42', state, 0)).toBe(1);
      expect(await store.save('support-42', { ...state, turnCount: 1 }, 1)).toBe(2);
      // A host that is behind cannot delete what it has not seen.
      await expect(store.delete('support-42', 1)).rejects.toBeInstanceOf(ConversationConflictError);
      expect(await store.list()).toEqual(['support-42']);
      await store.delete('support-42', 2);
      expect(await store.list()).toEqual([]);
      expect(await store.load('support-42')).toEqual({ version: 0 });
      expect(await store.save('support-42', newConversation('support-42', 'second'), 0)).toBe(1);
      expect((await store.load('support-42')).state?.incarnation).toBe('second');
    } finally {
      store.close();
    }
  });
});
