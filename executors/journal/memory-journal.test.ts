import { describeJournalContract } from '../../test/support/journal-contract';
import { MemoryJournal } from './memory-journal';

describeJournalContract('MemoryJournal', async ({ now }) => ({
  journal: new MemoryJournal(now),
  cleanup: async () => {},
}));
