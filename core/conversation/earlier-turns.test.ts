import type { Message } from '../schema/messages';
import { EarlierTurns } from './earlier-turns';

const said = (text: string): Message[] => [{ role: 'user', content: text }];

describe("a conversation's earlier turns on a worker", () => {
  test('are read once each, in order, and sent before the asking turn', async () => {
    const reads: string[] = [];
    const turns = new EarlierTurns();
    const read = async (turnId: string) => {
      reads.push(turnId);
      return said(turnId);
    };
    expect(await turns.before({ conversationId: 'c', turnNumber: 3, read })).toEqual([
      ...said('c#1'),
      ...said('c#2'),
    ]);
    expect(await turns.before({ conversationId: 'c', turnNumber: 4, read })).toHaveLength(3);
    expect(reads).toEqual(['c#1', 'c#2', 'c#3']);
    expect(await turns.before({ conversationId: 'c', turnNumber: 1, read })).toEqual([]);
  });

  test('are held within a bound of turns and of size, the oldest let go first', async () => {
    const reads: string[] = [];
    const big = 'x'.repeat(1_000);
    const turns = new EarlierTurns(10, 2_500);
    const read = async (turnId: string) => {
      reads.push(turnId);
      return said(`${turnId} ${big}`);
    };
    await turns.before({ conversationId: 'c', turnNumber: 4, read });
    expect(turns.size.turns).toBe(2);
    expect(turns.size.chars).toBeLessThanOrEqual(2_500);
    await turns.before({ conversationId: 'c', turnNumber: 4, read });
    // c#1 was let go for c#3, and reading it again lets c#2 go: each read is whole either way.
    expect(reads.slice(0, 3)).toEqual(['c#1', 'c#2', 'c#3']);
    expect(reads.length).toBeGreaterThan(3);
  });
});
