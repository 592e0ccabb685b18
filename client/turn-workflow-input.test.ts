import { expect, test } from '@jest/globals';
import { defaultModelRetry } from '../core';
import { type StartTurnArgs, startTurnSchema } from './start-turn-args';
import { turnWorkflowInputFrom } from './turn-workflow-input';

const inputOf = (args: StartTurnArgs) => turnWorkflowInputFrom({ args, parsed: startTurnSchema.parse(args) });
const base = { turnId: 'patch-turn', input: 'hi', model: 'm' };

test('a partial model retry policy changes only the fields it names: the default five attempts stay', () => {
  const { config } = inputOf({ ...base, modelRetry: { initialDelayMs: 50 } });
  expect(config.modelRetry).toMatchObject({ ...defaultModelRetry, initialDelayMs: 50 });
  expect(config.modelRetry.maxAttempts).toBe(5);
});

test('the older timing names hold unless the newer ones name the same field', () => {
  const { config } = inputOf({
    ...base,
    timing: { toolTimeoutMs: 1_234, modelMaxAttempts: 2 },
    timeouts: { modelMs: 5_678 },
    modelRetry: { maxDelayMs: 900 },
  });
  expect(config.timeouts).toMatchObject({ toolMs: 1_234, modelMs: 5_678 });
  expect(config.modelRetry).toMatchObject({ maxAttempts: 2, maxDelayMs: 900 });
});
