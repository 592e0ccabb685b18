/**
 * Values a tool, hook or observer can throw whose obvious description (`String(value)`,
 * `value.message`, `value instanceof Error`) throws in turn, or that are not errors at all. Each
 * comes with what the tool's output must say when a tool throws it: the message stays useful.
 */
export interface HostileValue {
  name: string;
  make(): unknown;
  /** The output's content when the tool throws it. */
  toolMessage: string;
  /** The output's error type. */
  errorType: string;
}

/** A Proxy whose every trap throws, down to `getPrototypeOf` and `has`. */
export function trappedProxy(): object {
  const everyTrapThrows = new Proxy(
    {},
    {
      get: (_target, trap) => () => {
        throw new Error(`trap ${String(trap)} refused`);
      },
    },
  );
  return new Proxy({}, everyTrapThrows);
}

class NamelessError extends Error {
  override get name(): string {
    throw new Error('no name for you');
  }
}

export const hostileValues: readonly HostileValue[] = [
  {
    name: 'an object without a prototype',
    make: () => Object.create(null),
    toolMessage: 'the tool threw a value that cannot be described (an object without a prototype)',
    errorType: 'Error',
  },
  {
    name: 'a Proxy whose every trap throws',
    make: trappedProxy,
    toolMessage:
      'the tool threw a value that cannot be described (inspecting it threw: trap getPrototypeOf refused)',
    errorType: 'Error',
  },
  {
    name: 'an object whose toString throws',
    make: () => ({
      toString() {
        throw new Error('no string for you');
      },
    }),
    toolMessage:
      'the tool threw a value that cannot be described (turning it into text threw: no string for you)',
    errorType: 'Error',
  },
  {
    name: 'an Error whose message getter throws',
    make: () =>
      Object.defineProperty(new RangeError(), 'message', {
        get() {
          throw new Error('no message for you');
        },
      }),
    toolMessage:
      'the tool threw a RangeError whose message cannot be read (reading it threw: no message for you)',
    errorType: 'RangeError',
  },
  {
    name: 'an Error subclass whose name getter throws',
    make: () => new NamelessError('still has a message'),
    toolMessage: 'still has a message',
    errorType: 'NamelessError',
  },
  { name: 'undefined', make: () => undefined, toolMessage: 'the tool threw undefined', errorType: 'Error' },
  { name: 'null', make: () => null, toolMessage: 'the tool threw null', errorType: 'Error' },
  {
    name: 'a symbol',
    make: () => Symbol('odd'),
    toolMessage: 'the tool threw a symbol (odd)',
    errorType: 'Error',
  },
  { name: 'a bigint', make: () => 10n, toolMessage: 'the tool threw the bigint 10n', errorType: 'Error' },
];
