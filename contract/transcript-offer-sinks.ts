import type { Sinks } from '@temporalio/workflow';
import type { InlineRequestContext } from './activities';

/**
 * How the turn workflow hands a model request's context to the worker running it, when that
 * context is too large to travel as activity input: before the request's activity is even
 * scheduled (a worker runs an activation's sink calls before it reports the activation), so a
 * request on the same worker finds it held and asks the workflow nothing. Not recorded: a request
 * that runs on another worker, or after this worker restarted, reads by query as before. Not
 * called on replay.
 */
export interface TranscriptOfferSinks extends Sinks {
  durableTurnsTranscripts: {
    /** The context the turn's next model request needs (the workflow's id comes with the call). */
    offer(context: InlineRequestContext): void;
  };
}
