import type { InlineRequestContext, OfferedRequestContext } from '../contract/activities';
import type { KnownTranscript, ModelRequestContext, TranscriptPage } from '../contract/turn-workflow';
import type { Message } from '../core';
import { type HeldTranscript, knownOf, type TranscriptCache } from './transcript-cache';

/** A model request's context, whole: what a full read of the workflow's query gives. */
export interface ModelRequestRead {
  messages: Message[];
  callIds: readonly string[];
  acceptedCallIds: string[];
}

/**
 * Reads what a model request needs from its workflow (by query: the transcript never travels as
 * activity input, which would enter history on every request). The worker keeps what it read last
 * time, so a request asks only for what came after; a long turn's request then reads two messages
 * instead of megabytes. The result is the same as a full read: the workflow sends only a tail
 * when it has confirmed the held prefix, and a full answer replaces what was held.
 *
 * A request whose context came with it (`inline`) asks nothing when that context is whole, or
 * extends exactly what this worker holds — the same turn, as many messages and call ids, the same
 * digests of them. Otherwise (another worker read the previous request, this one restarted) it
 * reads by query as above.
 *
 * A request whose context was too large to come with it (`offered`) asks nothing when this worker
 * already holds exactly that transcript: its workflow's task ran here and handed it over (see
 * `offerTranscript`). Otherwise it reads by query.
 */
export async function readModelRequest({
  workflowId,
  transcripts,
  query,
  inline,
  offered,
}: {
  workflowId: string;
  transcripts: TranscriptCache;
  query: (known?: KnownTranscript, page?: TranscriptPage) => Promise<ModelRequestContext | null>;
  inline?: InlineRequestContext;
  offered?: OfferedRequestContext;
}): Promise<ModelRequestRead | null> {
  const held = transcripts.get(workflowId);
  const sent = inline && extendHeld(held, inline);
  if (inline && sent) {
    transcripts.reads.inline += 1;
    transcripts.set(workflowId, sent);
    return { messages: [...sent.messages], callIds: sent.callIds, acceptedCallIds: inline.acceptedCallIds };
  }
  if (offered && held && isOffered(held, offered)) {
    transcripts.reads.offered += 1;
    return { messages: [...held.messages], callIds: held.callIds, acceptedCallIds: offered.acceptedCallIds };
  }
  let answer = await readPages(query, held && knownOf(held));
  let transcript = answer && extend(held, answer);
  if (answer && !transcript) {
    // The workflow confirmed a prefix other than the one asked about: read the whole transcript.
    answer = await readPages(query);
    transcript = answer && extend(undefined, answer);
  }
  if (!answer || !transcript) return null;
  if (answer.messagesFrom > 0) transcripts.reads.incremental += 1;
  else transcripts.reads.full += 1;
  transcripts.set(workflowId, transcript);
  return {
    // A copy of the list: a model that appends to its request's messages leaves the held ones alone.
    messages: [...transcript.messages],
    callIds: transcript.callIds,
    acceptedCallIds: answer.acceptedCallIds,
  };
}

/** Characters of the messages' JSON asked for per query: well under the 2 MB payload limit. */
export const transcriptPageChars = 512 * 1024;

/**
 * One answer of the workflow, read in as many pages as it takes: a wave of large outputs, or a
 * whole long transcript, is more than one query may answer. Every page must come from the same
 * read (the same start and digests); a transcript that changed between pages fails the attempt,
 * which the engine tries again.
 */
async function readPages(
  query: (known?: KnownTranscript, page?: TranscriptPage) => Promise<ModelRequestContext | null>,
  known?: KnownTranscript,
): Promise<ModelRequestContext | null> {
  const first = await query(known, { offset: 0, maxChars: transcriptPageChars });
  if (!first?.messagesPage) return first;
  const { length } = first.messagesPage;
  const texts = [first.messagesPage.text];
  let read = first.messagesPage.text.length;
  while (read < length) {
    const next = await query(known, { offset: read, maxChars: transcriptPageChars });
    const page = next?.messagesPage;
    const same =
      page !== undefined &&
      page.offset === read &&
      page.length === length &&
      page.text.length > 0 &&
      next?.messagesFrom === first.messagesFrom &&
      next.messagesDigest === first.messagesDigest;
    if (!same) throw new Error('the transcript changed while it was read in pages');
    texts.push(page.text);
    read += page.text.length;
  }
  const { messagesPage: _page, ...rest } = first;
  // Our own workflow's JSON of its messages; every page came from the same transcript (same start,
  // same chained digest of all its messages).
  const messages = JSON.parse(texts.join('')) as Message[];
  return { ...rest, messages };
}

/** Whether the held transcript is exactly the one the request names. */
function isOffered(held: HeldTranscript, offered: OfferedRequestContext): boolean {
  return (
    held.epoch === offered.epoch &&
    held.messages.length === offered.messageCount &&
    held.messagesDigest === offered.messagesDigest &&
    held.callIds.length === offered.callIdCount &&
    held.callIdsDigest === offered.callIdsDigest
  );
}

/**
 * Takes a request's context that its workflow's task handed this worker (`TranscriptOfferSinks`),
 * if it extends what is held; one that does not (this worker holds another prefix, or nothing
 * while the context is only a tail) is dropped, and the request reads by query.
 */
export function offerTranscript(
  transcripts: TranscriptCache,
  workflowId: string,
  context: InlineRequestContext,
): void {
  const next = extendHeld(transcripts.get(workflowId), context);
  if (next) transcripts.set(workflowId, next);
}

/** The held transcript extended by a context sent with the request, if it extends what is held. */
function extendHeld(
  held: HeldTranscript | undefined,
  sent: InlineRequestContext,
): HeldTranscript | undefined {
  if (sent.messagesFrom > 0 || sent.callIdsFrom > 0) {
    const holds =
      held !== undefined &&
      held.messagesDigest === sent.heldMessagesDigest &&
      held.callIdsDigest === sent.heldCallIdsDigest;
    if (!holds) return undefined;
  }
  return extend(held, sent);
}

/** The held transcript with the answer's tails appended, or the answer itself when it is whole. */
function extend(
  held: HeldTranscript | undefined,
  answer: Omit<ModelRequestContext, 'responseIndex'>,
): HeldTranscript | undefined {
  const whole = answer.messagesFrom === 0 && answer.callIdsFrom === 0;
  const fits =
    held !== undefined &&
    held.epoch === answer.epoch &&
    held.messages.length === answer.messagesFrom &&
    held.callIds.length === answer.callIdsFrom;
  if (!whole && !fits) return undefined;
  const base = fits && !whole ? held : undefined;
  return {
    epoch: answer.epoch,
    messages: base ? [...base.messages, ...answer.messages] : answer.messages,
    messagesDigest: answer.messagesDigest,
    callIds: base ? [...base.callIds, ...answer.callIds] : answer.callIds,
    callIdsDigest: answer.callIdsDigest,
    bytes: (base?.bytes ?? 0) + answer.messages.reduce((sum, m) => sum + JSON.stringify(m).length, 0),
  };
}
