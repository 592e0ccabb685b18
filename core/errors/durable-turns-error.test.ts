import { DurableTurnsError, hasMarker } from './durable-turns-error';

class ExampleError extends DurableTurnsError {
  constructor() {
    super('example', { code: 'example-code', cause: new Error('underneath') });
  }
}

test('an error of ours carries a stable code and its cause, and is known by its marker', () => {
  const error = new ExampleError();
  expect(error.code).toBe('example-code');
  expect((error.cause as Error).message).toBe('underneath');
  expect(DurableTurnsError.isInstance(error)).toBe(true);
  expect(DurableTurnsError.isInstance(new Error('theirs'))).toBe(false);
  expect(DurableTurnsError.isInstance(undefined)).toBe(false);
});

test('isInstance holds across module copies: it reads the Symbol.for marker, not the prototype', () => {
  // What a second copy of the module makes: another class, the same registered symbol.
  const copy = Object.assign(Object.create(Error.prototype) as object, {
    [Symbol.for('durable-turns.error')]: true,
  });
  expect(copy instanceof DurableTurnsError).toBe(false);
  expect(DurableTurnsError.isInstance(copy)).toBe(true);
  expect(hasMarker(copy, Symbol.for('durable-turns.error'))).toBe(true);
});
