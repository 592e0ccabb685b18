import { hostileValues } from '../../test/support/hostile-values';
import { describeThrown } from './describe-thrown';
import { NonRetryableToolError } from './run-tool-attempt';

describe('describing a thrown value', () => {
  it.each(hostileValues.map((v) => [v.name, v] as const))(
    'describes %s without throwing, in words a model can act on',
    (_name, value) => {
      expect(describeThrown(value.make(), 'the tool')).toEqual({
        message: value.toolMessage,
        errorType: value.errorType,
        retryable: true,
      });
    },
  );

  it("keeps an Error's own message and takes its type from its name, or from its class when it set none", () => {
    class QuotaError extends Error {}
    expect(describeThrown(new TypeError('bad state'), 'the tool')).toEqual({
      message: 'bad state',
      errorType: 'TypeError',
      retryable: true,
    });
    expect(describeThrown(new QuotaError('over quota'), 'the tool')).toMatchObject({
      message: 'over quota',
      errorType: 'QuotaError',
    });
  });

  it('reads `retryable: false` as a request not to retry, from an Error or a plain object', () => {
    expect(describeThrown(new NonRetryableToolError('gone'), 'the tool')).toEqual({
      message: 'gone',
      errorType: 'NonRetryableToolError',
      retryable: false,
    });
    expect(describeThrown({ message: 'no', retryable: false }, 'the tool').retryable).toBe(false);
  });

  it('says what was thrown when the value carries no message of its own', () => {
    const who = 'the hook';
    expect(describeThrown('plain words', who).message).toBe('plain words');
    expect(describeThrown('', who).message).toBe('the hook threw an empty string');
    expect(describeThrown(42, who).message).toBe('the hook threw the number 42');
    expect(describeThrown(false, who).message).toBe('the hook threw the boolean false');
    expect(describeThrown(function refuse() {}, who).message).toBe('the hook threw a function (refuse)');
    expect(describeThrown(new Error(''), who).message).toBe('the hook threw an Error without a message');
    expect(describeThrown({ code: 'E_BUSY' }, who).message).toBe('the hook threw {"code":"E_BUSY"}');
    expect(describeThrown({}, who).message).toBe(
      'the hook threw a value that cannot be described (an object with no message and no properties)',
    );
  });

  it('shows the properties of an object without a prototype when it has some', () => {
    const bare = Object.assign(Object.create(null) as object, { code: 7 });
    expect(describeThrown(bare, 'the tool').message).toBe(
      'the tool threw an object without a prototype: {"code":7}',
    );
  });

  it('uses the string form of an object that defines one', () => {
    const custom = { toString: () => 'custom failure' };
    expect(describeThrown(custom, 'the tool').message).toBe('custom failure');
  });

  it('does not look further into what a failing read threw, however hostile that is too', () => {
    const nested = {
      get message(): string {
        throw Object.create(null);
      },
    };
    expect(describeThrown(nested, 'the tool').message).toBe(
      'the tool threw an object whose message cannot be read (reading it threw: a value that cannot be described either)',
    );
  });
});
