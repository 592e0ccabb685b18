import { notifyObservers, type ToolPreEvent, type TurnObserver } from './turn-observer';

const event: ToolPreEvent = { turnId: 't', toolCallId: 'c1', toolName: 'x', attempt: 1, args: {} };

describe('notifying observers', () => {
  it('tells every observer in order, even after one of them threw', () => {
    const heard: string[] = [];
    const observers: TurnObserver[] = [
      { onToolPre: () => heard.push('first') },
      {
        onToolPre: () => {
          throw Object.create(null);
        },
      },
      { onToolPre: () => heard.push('third') },
    ];
    notifyObservers(observers, 'onToolPre', event);
    expect(heard).toEqual(['first', 'third']);
  });

  it('skips an observer whose method cannot even be read', () => {
    const heard: string[] = [];
    const hostile = Object.defineProperty({}, 'onToolPre', {
      get() {
        throw new Error('no method for you');
      },
    }) as TurnObserver;
    notifyObservers([hostile, { onToolPre: () => heard.push('next') }], 'onToolPre', event);
    expect(heard).toEqual(['next']);
  });

  it('handles the rejection of an async observer, so it cannot end the process', async () => {
    const observer: TurnObserver = {
      // An async method is a `() => void` to TypeScript: nothing stops a user from writing one.
      onToolPre: async () => {
        throw new Error('async observer failed');
      },
    };
    notifyObservers([observer], 'onToolPre', event);
    // Jest fails the test if the rejection is left unhandled by then.
    await new Promise((resolve) => setTimeout(resolve, 0));
  });

  it('gives a hand-made thenable an observer returns a rejection handler', () => {
    const handlers: unknown[] = [];
    const thenable = Object.defineProperty({}, 'then', {
      value: (_onFulfilled: unknown, onRejected: unknown) => handlers.push(onRejected),
    });
    notifyObservers([{ onToolPre: () => thenable as unknown as undefined }], 'onToolPre', event);
    expect(handlers).toEqual([expect.any(Function)]);
  });

  it('ignores a returned value whose `then` throws when read', () => {
    const heard: string[] = [];
    const hostile = Object.defineProperty({}, 'then', {
      get() {
        throw new Error('no then for you');
      },
    });
    const observers: TurnObserver[] = [
      { onToolPre: () => hostile as unknown as undefined },
      { onToolPre: () => heard.push('next') },
    ];
    expect(() => notifyObservers(observers, 'onToolPre', event)).not.toThrow();
    expect(heard).toEqual(['next']);
  });
});
