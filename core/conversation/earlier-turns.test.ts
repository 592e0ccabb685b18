import type { Message } from '../schema/messages';
import { EarlierTurns } from './earlier-turns';

const said = (text: string): Message[] => [{ role: 'user', content: text }];
const turn = (text: string) => ({ messages: said(text), replacesEarlier: false });

describe("a conversation's earlier turns on a worker", () => {
  test('are read once each, in order, and sent before the asking turn', async () => {
    const reads: string[] = [];
    const turns = new EarlierTurns();
    const read = async (turnId: string) => {
      reads.push(turnId);
      return turn(turnId);
    };
    expect(await turns.before({ conversationId: 'c', turnNumber: 3, read })).toEqual([
      ...said('c#1'),
      ...said('c#2'),
    ]);
    expect(await turns.before({ conversationId: 'c', turnNumber: 4, read })).toHaveLength(3);
    expect(reads).toEqual(['c#2', 'c#1', 'c#3']);
    expect(await turns.before({ conversationId: 'c', turnNumber: 1, read })).toEqual([]);
  });

  test('are held within a bound of turns and of size, the oldest let go first', async () => {
    const reads: string[] = [];
    const big = 'x'.repeat(1_000);
    const turns = new EarlierTurns(10, 2_500);
    const read = async (turnId: string) => {
      reads.push(turnId);
      return turn(`${turnId} ${big}`);
    };
    await turns.before({ conversationId: 'c', turnNumber: 4, read });
    expect(turns.size.turns).toBe(2);
    expect(turns.size.chars).toBeLessThanOrEqual(2_500);
    await turns.before({ conversationId: 'c', turnNumber: 4, read });
    // The oldest read was let go for the newest, and reading it again lets another go: each read is whole either way.
    expect(reads.slice(0, 3)).toEqual(['c#3', 'c#2', 'c#1']);
    expect(reads.length).toBeGreaterThan(3);
  });

  test('stop at a turn that compacted: its summary stands for the turns before it, which are not read', async () => {
    const reads: string[] = [];
    const turns = new EarlierTurns();
    const read = async (turnId: string) => {
      reads.push(turnId);
      return turnId === 'c#2' ? { messages: said('summary and c#2'), replacesEarlier: true } : turn(turnId);
    };
    expect(await turns.before({ conversationId: 'c', turnNumber: 4, read })).toEqual([
      ...said('summary and c#2'),
      ...said('c#3'),
    ]);
    expect(reads).toEqual(['c#3', 'c#2']);
  });

  test("a branch's: its own turns, then those of each conversation it came from, up to where it branched; a summary stops the walk", async () => {
    const turns = new EarlierTurns();
    const read = async (turnId: string) =>
      turnId === 'a#1' ? { messages: said('summary of a#1'), replacesEarlier: true } : turn(turnId);
    // c branched from b after b's turn 2, and b from a after a's turn 3.
    const origin = [
      { conversationId: 'b', turns: 2 },
      { conversationId: 'a', turns: 3 },
    ];
    expect(await turns.before({ conversationId: 'c', turnNumber: 2, origin, read })).toEqual(
      ['summary of a#1', 'a#2', 'a#3', 'b#1', 'b#2', 'c#1'].flatMap(said),
    );
    // A compacted turn of the branch stands for everything before it, its origin's turns too.
    const compacted = async (turnId: string) =>
      turnId === 'c#1' ? { messages: said('summary of all'), replacesEarlier: true } : turn(turnId);
    expect(
      await new EarlierTurns().before({ conversationId: 'c', turnNumber: 3, origin, read: compacted }),
    ).toEqual(['summary of all', 'c#2'].flatMap(said));
  });

  test("a branch's source is checked once before its turns are first read, not when they are held", async () => {
    const checked: string[] = [];
    const turns = new EarlierTurns();
    const origin = [{ conversationId: 'a', incarnation: 'i-a', turns: 2 }];
    const checkOrigin = async (o: { conversationId: string }) => {
      checked.push(o.conversationId);
    };
    const read = async (turnId: string) => turn(turnId);
    await turns.before({ conversationId: 'b', turnNumber: 1, origin, read, checkOrigin });
    await turns.before({ conversationId: 'b', turnNumber: 2, origin, read, checkOrigin });
    expect(checked).toEqual(['a']);
    // A source that is gone: the request fails before anything of it is read.
    const refuse = async () => {
      throw new Error('gone');
    };
    await expect(
      new EarlierTurns().before({ conversationId: 'b', turnNumber: 1, origin, read, checkOrigin: refuse }),
    ).rejects.toThrow('gone');
  });
});
