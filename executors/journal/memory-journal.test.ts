import { describeJournalContract } from './journal-contract';
import { MemoryJournal } from './memory-journal';

describeJournalContract('MemoryJournal', async ({ now }) => ({
  journal: new MemoryJournal(now),
  cleanup: async () => {},
}));
