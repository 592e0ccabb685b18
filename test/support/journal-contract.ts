import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { JournalEntry } from '../../core';
import { JournalError, type JournalErrorCode } from '../../executors/journal/journal-errors';
import type { TurnJournal } from '../../executors/journal/turn-journal';

export type MakeJournal = (opts: { now: () => number }) => Promise<{
  journal: TurnJournal;
  cleanup(): Promise<void>;
}>;

const opened: JournalEntry = { type: 'tool.approval_decided', toolCallId: 'call-1', approved: true };
const requested: JournalEntry = { type: 'model.requested', responseIndex: 0 };
const leaseMs = 1_000;

/** Awaits an operation that must be refused and returns its JournalError, checking the code. */
async function refusal(operation: Promise<unknown>, code: JournalErrorCode): Promise<JournalError> {
  const error = await operation.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!JournalError.isInstance(error))
    throw new Error(`expected a JournalError ${code}, got ${String(error)}`);
  expect(error.code).toBe(code);
  return error;
}

/**
 * The rules every TurnJournal keeps, declared once and run against each store, so the in-memory
 * journal stays a faithful stand-in for the shared one. `make` gets the clock the store must read.
 */
export function describeJournalContract(name: string, make: MakeJournal): void {
  describe(`${name} (journal contract)`, () => {
    let time = 0;
    let journal: TurnJournal;
    let cleanup: () => Promise<void>;
    const advance = (ms: number) => {
      time += ms;
    };

    beforeEach(async () => {
      time = 1_700_000_000_000;
      ({ journal, cleanup } = await make({ now: () => time }));
    });

    afterEach(async () => {
      await cleanup();
    });

    it('appends and loads entries in order', async () => {
      const session = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      expect(await session.load()).toEqual({ entries: [], version: 0 });
      expect(await session.append([opened], 0)).toBe(1);
      expect(await session.append([requested, { type: 'model.requested', responseIndex: 1 }], 1)).toBe(3);
      expect(await session.load()).toEqual({
        entries: [opened, requested, { type: 'model.requested', responseIndex: 1 }],
        version: 3,
      });
    });

    it('keeps each turn its own entries and its own lease', async () => {
      const one = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      const two = await journal.open({ turnId: 't2', owner: 'host-b', leaseMs });
      await one.append([opened], 0);
      expect(await two.load()).toEqual({ entries: [], version: 0 });
    });

    it('deletes a turn (entries and lease, other turns untouched), not while another owner holds its lease; its id then starts empty', async () => {
      if (!journal.delete) throw new Error('this journal has no delete');
      const one = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      await one.append([opened, requested], 0);
      const two = await journal.open({ turnId: 't2', owner: 'host-a', leaseMs });
      await two.append([opened], 0);
      await refusal(journal.delete({ turnId: 't1', owner: 'host-b' }), 'lease-held');
      expect(await journal.read?.({ turnId: 't1' })).toEqual([opened, requested]);
      await journal.delete({ turnId: 't1', owner: 'host-a' });
      expect(await journal.read?.({ turnId: 't1' })).toEqual([]);
      expect(await journal.read?.({ turnId: 't2' })).toEqual([opened]);
      // A new session, by anybody, starts at version 0; the one from before the delete is fenced off.
      const again = await journal.open({ turnId: 't1', owner: 'host-b', leaseMs });
      expect(await again.load()).toEqual({ entries: [], version: 0 });
      await refusal(one.append([requested], 0), 'stale-fence');
      expect(await again.append([opened], 0)).toBe(1);
    });

    it('refuses an append at the wrong expected version and writes nothing', async () => {
      const session = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      await session.append([opened], 0);
      const error = await refusal(session.append([requested], 0), 'version-conflict');
      expect(error.message).toContain('expected journal version 0 but it is 1');
      await refusal(session.append([requested], 2), 'version-conflict');
      expect(await session.load()).toEqual({ entries: [opened], version: 1 });
    });

    it('refuses a second owner while the lease is held, naming the holder', async () => {
      await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      advance(leaseMs - 1);
      const error = await refusal(journal.open({ turnId: 't1', owner: 'host-b', leaseMs }), 'lease-held');
      expect(error.message).toContain('host-a');
    });

    it('lets the same owner reopen, which fences off its earlier session', async () => {
      const first = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      await first.append([opened], 0);
      const again = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      expect(again.fencingToken).toBeGreaterThan(first.fencingToken);
      expect(await again.load()).toEqual({ entries: [opened], version: 1 });
      await refusal(first.append([requested], 1), 'stale-fence');
    });

    it('lets another owner take over after the lease lapses and refuses the first session', async () => {
      const first = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      await first.append([opened], 0);
      advance(leaseMs);
      const second = await journal.open({ turnId: 't1', owner: 'host-b', leaseMs });
      expect(await second.load()).toEqual({ entries: [opened], version: 1 });
      const error = await refusal(first.append([requested], 1), 'stale-fence');
      expect(error.message).toContain(`fencing token ${first.fencingToken} is stale`);
      await refusal(first.renew(), 'stale-fence');
      await refusal(first.load(), 'stale-fence');
      expect(await second.append([requested], 1)).toBe(2);
    });

    it('takes over at once with takeOver: true', async () => {
      const first = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      const second = await journal.open({ turnId: 't1', owner: 'host-b', leaseMs, takeOver: true });
      await second.append([opened], 0);
      await refusal(first.append([requested], 1), 'stale-fence');
    });

    it('hands out strictly increasing fencing tokens', async () => {
      const tokens: number[] = [];
      for (const owner of ['host-a', 'host-b', 'host-a', 'host-c']) {
        tokens.push((await journal.open({ turnId: 't1', owner, leaseMs, takeOver: true })).fencingToken);
      }
      const released = await journal.open({ turnId: 't1', owner: 'host-d', leaseMs, takeOver: true });
      await released.release();
      tokens.push(released.fencingToken);
      tokens.push((await journal.open({ turnId: 't1', owner: 'host-e', leaseMs })).fencingToken);
      tokens.forEach((token, i) => {
        if (i > 0) expect(token).toBeGreaterThan(tokens[i - 1]!);
      });
    });

    it('lets another owner open at once after a release and refuses the released session', async () => {
      const first = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      await first.append([opened], 0);
      await first.release();
      const second = await journal.open({ turnId: 't1', owner: 'host-b', leaseMs });
      expect(await second.load()).toEqual({ entries: [opened], version: 1 });
      await refusal(first.append([requested], 1), 'lease-released');
      await refusal(first.renew(), 'lease-released');
      await refusal(first.load(), 'lease-released');
      await first.release();
    });

    it('does not let a superseded session release the new owner’s lease', async () => {
      const first = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      await journal.open({ turnId: 't1', owner: 'host-b', leaseMs, takeOver: true });
      await first.release();
      await refusal(journal.open({ turnId: 't1', owner: 'host-c', leaseMs }), 'lease-held');
    });

    it('extends the lease on renew, so a second owner is still refused after the old expiry', async () => {
      const first = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      advance(leaseMs - 100);
      await first.renew();
      advance(500);
      await refusal(journal.open({ turnId: 't1', owner: 'host-b', leaseMs }), 'lease-held');
      advance(leaseMs);
      await journal.open({ turnId: 't1', owner: 'host-b', leaseMs });
    });

    it('extends the lease on append', async () => {
      const first = await journal.open({ turnId: 't1', owner: 'host-a', leaseMs });
      advance(leaseMs - 100);
      await first.append([opened], 0);
      advance(500);
      await refusal(journal.open({ turnId: 't1', owner: 'host-b', leaseMs }), 'lease-held');
    });
  });
}
