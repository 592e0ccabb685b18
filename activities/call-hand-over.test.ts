import { describe, expect, it } from '@jest/globals';
import type { PreparedCall } from '../core';
import { CallHandOver } from './call-hand-over';

const call = (toolCallId: string): PreparedCall => ({
  toolCallId,
  toolName: 'echo',
  input: {},
  policy: {
    concurrencySafe: true,
    resources: [],
    retry: {
      maxAttempts: 1,
      initialDelayMs: 0,
      backoffCoefficient: 1,
      maxDelayMs: 0,
      nonRetryableErrorTypes: [],
    },
    retrySafe: true,
    requiresApproval: false,
  },
});

const nextTick = () => new Promise((resolve) => setImmediate(resolve));

/** A hand-over whose sends are recorded and finish only when the test lets them. */
function recordingHandOver() {
  const sent: string[][] = [];
  const pending: (() => void)[] = [];
  const handOver = new CallHandOver(async (calls) => {
    sent.push(calls.map((c) => c.toolCallId));
    await new Promise<void>((resolve) => pending.push(resolve));
  });
  const finishSends = () => {
    for (const resolve of pending.splice(0)) resolve();
  };
  return { handOver, sent, finishSends };
}

describe('handing streamed calls to the workflow', () => {
  it('sends the calls of one burst together, in order', async () => {
    const { handOver, sent, finishSends } = recordingHandOver();
    handOver.push(call('a'));
    handOver.push(call('b'));
    await nextTick();
    finishSends();
    await handOver.drain();
    expect(sent).toEqual([['a', 'b']]);
  });

  it('sends calls that arrive while a send is in flight together in the next send', async () => {
    const { handOver, sent, finishSends } = recordingHandOver();
    handOver.push(call('a'));
    await nextTick();
    handOver.push(call('b'));
    handOver.push(call('c'));
    finishSends();
    await nextTick();
    finishSends();
    await handOver.drain();
    expect(sent).toEqual([['a'], ['b', 'c']]);
  });

  it('sends nothing when the stream ends before the burst goes out: the calls travel with the response', async () => {
    const { handOver, sent } = recordingHandOver();
    handOver.push(call('a'));
    handOver.push(call('b'));
    handOver.close();
    await handOver.drain();
    expect(sent).toEqual([]);
  });

  it('lets a send in flight finish when the stream ends, and sends nothing queued behind it', async () => {
    const { handOver, sent, finishSends } = recordingHandOver();
    handOver.push(call('a'));
    await nextTick();
    handOver.push(call('b'));
    handOver.close();
    const drained = handOver.drain();
    finishSends();
    await drained;
    expect(sent).toEqual([['a']]);
  });

  it('rethrows a failed send from drain', async () => {
    const handOver = new CallHandOver(async () => {
      throw new Error('update rejected');
    });
    handOver.push(call('a'));
    await expect(handOver.drain()).rejects.toThrow('update rejected');
  });
});
