import { proxySinks } from '@temporalio/workflow';
import type { InlineRequestContext, OfferedRequestContext } from '../../contract/activities';
import type { TranscriptOfferSinks } from '../../contract/transcript-offer-sinks';
import { offeredContextName } from './model-request-answer';

const { durableTurnsTranscripts } = proxySinks<TranscriptOfferSinks>();

/**
 * Hands a request's context to this workflow's worker outside history (see `TranscriptOfferSinks`)
 * and returns its name, for the request's input.
 */
export function offerRequestContext(context: InlineRequestContext): OfferedRequestContext {
  durableTurnsTranscripts.offer(context);
  return offeredContextName(context);
}
