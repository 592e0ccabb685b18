/** What a thrown value tells the model: a message, an error type (for retry policies) and retryability. */
export interface ThrownDescription {
  message: string;
  errorType: string;
  retryable: boolean;
}

/**
 * Describes anything a tool, hook or observer can throw, and never throws itself. JavaScript lets
 * code throw any value, and the obvious `String(error)` throws in turn for an object without a
 * prototype, a Proxy whose traps throw, or an object whose `toString` throws; here every read of
 * the value is guarded, so a description always comes back. `who` is the subject of the sentences
 * written for values that carry no message of their own ("the tool threw undefined").
 */
export function describeThrown(thrown: unknown, who: string): ThrownDescription {
  try {
    return describe(thrown, who);
  } catch {
    // Unreachable unless a built-in itself was replaced by one that throws: still a description.
    return plain(`${who} threw a value that cannot be described`);
  }
}

function describe(thrown: unknown, who: string): ThrownDescription {
  switch (typeof thrown) {
    case 'string':
      return plain(thrown === '' ? `${who} threw an empty string` : thrown);
    case 'undefined':
      return plain(`${who} threw undefined`);
    case 'bigint':
      return plain(`${who} threw the bigint ${thrown}n`);
    case 'number':
    case 'boolean':
      return plain(`${who} threw the ${typeof thrown} ${thrown}`);
    case 'symbol':
      // A template literal would throw for a symbol: its description is a plain read.
      return plain(`${who} threw a symbol (${thrown.description ?? 'without a description'})`);
    case 'function': {
      const name = read(() => (thrown as { name?: unknown }).name);
      return plain(`${who} threw a function${typeof name === 'string' && name !== '' ? ` (${name})` : ''}`);
    }
    default:
      return thrown === null ? plain(`${who} threw null`) : describeObject(thrown as object, who);
  }
}

function describeObject(thrown: object, who: string): ThrownDescription {
  const proto = read(() => Object.getPrototypeOf(thrown) as unknown);
  if (proto instanceof Unreadable) return undescribable(who, `inspecting it threw: ${proto.reason}`);
  const isError =
    read(() => thrown instanceof Error) === true ||
    read(() => Object.prototype.toString.call(thrown)) === '[object Error]';
  const errorType = isError ? errorTypeOf(thrown) : 'Error';
  // A tool says "do not try this again" with `retryable: false` (as NonRetryableToolError does).
  const retryable = read(() => 'retryable' in thrown && thrown.retryable === false) !== true;
  const described = (message: string) => ({ message, errorType, retryable });
  const message = read(() => (thrown as { message?: unknown }).message);
  if (typeof message === 'string')
    return described(message !== '' ? message : `${who} threw ${article(errorType)} without a message`);
  if (message instanceof Unreadable) {
    const what = isError ? article(errorType) : 'an object';
    return described(
      `${who} threw ${what} whose message cannot be read (reading it threw: ${message.reason})`,
    );
  }
  // No message: the value's own string form when it has one, else its JSON.
  const text = proto === null ? undefined : read(() => String(thrown));
  if (typeof text === 'string' && text !== '[object Object]') return described(text);
  const json = read(() => JSON.stringify(thrown));
  const withoutProto = proto === null ? 'an object without a prototype' : undefined;
  if (typeof json === 'string' && json !== '{}')
    return described(`${who} threw ${withoutProto ? `${withoutProto}: ` : ''}${json}`);
  const why =
    withoutProto ??
    (text instanceof Unreadable
      ? `turning it into text threw: ${text.reason}`
      : json instanceof Unreadable
        ? `turning it into JSON threw: ${json.reason}`
        : 'an object with no message and no properties');
  return { ...undescribable(who, why), errorType, retryable };
}

/** The error's `name`, or its class's when the name is the generic one (a subclass that set none). */
function errorTypeOf(error: object): string {
  const name = read(() => (error as { name?: unknown }).name);
  if (typeof name === 'string' && name !== '' && name !== 'Error') return name;
  const constructorName = read(() => (error as { constructor?: { name?: unknown } }).constructor?.name);
  return typeof constructorName === 'string' && constructorName !== '' ? constructorName : 'Error';
}

function plain(message: string): ThrownDescription {
  return { message, errorType: 'Error', retryable: true };
}

function undescribable(who: string, why: string): ThrownDescription {
  return plain(`${who} threw a value that cannot be described (${why})`);
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** A read of the thrown value that threw; `reason` says what it threw, without reading further. */
class Unreadable {
  readonly reason: string;
  constructor(thrown: unknown) {
    this.reason = reasonOf(thrown);
  }
}

function read<T>(get: () => T): T | Unreadable {
  try {
    return get();
  } catch (error) {
    return new Unreadable(error);
  }
}

/** What a failed read threw, in words: one guarded look, no recursion (it may be just as hostile). */
function reasonOf(thrown: unknown): string {
  if (typeof thrown === 'string') return thrown;
  if (typeof thrown === 'symbol') return 'a symbol';
  if (typeof thrown === 'function') return 'a function';
  if (typeof thrown !== 'object' || thrown === null) return String(thrown);
  try {
    const message = (thrown as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  } catch {
    // As hostile as the value it came from: say so below.
  }
  return 'a value that cannot be described either';
}
