import { InProcessExecutor, type RetryPolicyInput } from 'durable-turns';
import type { TurnHost } from './run-conversation';

/**
 * Model retries as the engine decides them, but without the default backoff's seconds: a request
 * retried when it should not be shows as requests counted, not as time.
 */
export const replayModelRetry: RetryPolicyInput = { initialDelayMs: 1, maxDelayMs: 10 };

/** Turns run by the in-process executor. */
export const inProcessHost: TurnHost = ({ tools, model }, use) => {
  const executor = new InProcessExecutor({ tools, model, modelRetry: replayModelRetry, tracing: false });
  return use((args) => executor.runTurn(args));
};
