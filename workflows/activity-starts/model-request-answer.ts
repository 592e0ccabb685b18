import type { InlineRequestContext, OfferedRequestContext } from '../../contract/activities';
import {
  type KnownTranscript,
  knownTranscriptSchema,
  type ModelRequestContext,
  transcriptPageSchema,
} from '../../contract/turn-workflow';
import { type Message, stableHash, type TurnState } from '../../core';
import { PrefixDigests } from './prefix-digests';

/** A workflow run's digests of its transcript's prefixes, kept between model requests. */
export interface TranscriptDigests {
  messages: PrefixDigests<Message>;
  callIds: PrefixDigests<string>;
  /** The JSON of the tail last read in pages, so each page of one read does not write it again. */
  pagedTail?: { from: number; count: number; last: Message | undefined; text: string };
}

/**
 * The most characters of JSON a page may carry, whatever the asker asks: three UTF-8 bytes each at
 * worst, and its quotes escaped again in the answer, it stays under the 2 MB payload limit.
 */
export const maxPageChars = 600_000;

export function transcriptDigests(): TranscriptDigests {
  return { messages: new PrefixDigests(messageDigest), callIds: new PrefixDigests((id: string) => id) };
}

/**
 * Answers the model activity's query for its request context. The activity says what it already
 * holds (`known`); when that is still a prefix of the transcript — the same turn, and the chained
 * digests of its messages and call ids still those of the transcript's first ones — only what came
 * after it is sent, so a request late in a long turn reads the two newest messages instead of the
 * whole transcript. That holds across continue-as-new too: the next run rebuilds the same messages.
 * Anything else (another turn, a changed message anywhere, as after a reset; a malformed `known`)
 * gets the whole transcript.
 *
 * An asker that sends `page` gets messages whose JSON is longer than a page in pages (see
 * `ModelRequestContext.messagesPage`); one that does not (a worker from before pages) gets them
 * whole, as it always did.
 */
export function answerModelRequest({
  view,
  responseIndex,
  epoch,
  known,
  page,
  digests,
}: {
  view: Readonly<TurnState>;
  responseIndex: number;
  /** The turn's workflow chain: its first run's id, the same in every run after continue-as-new. */
  epoch: string;
  /** What the asker holds; not trusted (it crosses a boundary). */
  known: unknown;
  /** Which page the asker wants, if it reads in pages; not trusted either. */
  page?: unknown;
  digests: TranscriptDigests;
}): ModelRequestContext | null {
  // A compaction's summary request reads the same messages, before (or instead of) the request.
  if (!(view.modelInFlight || view.compacting) || view.responseIndex !== responseIndex) return null;
  const { accepted, callIds, messages } = requestLists(view);
  const parsed = knownTranscriptSchema.safeParse(known);
  const prefix =
    parsed.success && stillHolds(parsed.data, { epoch, messages, callIds, digests })
      ? parsed.data
      : undefined;
  const messagesFrom = prefix?.messageCount ?? 0;
  const callIdsFrom = prefix?.callIdCount ?? 0;
  const answer: ModelRequestContext = {
    responseIndex,
    epoch,
    messagesFrom,
    messages: messages.slice(messagesFrom),
    messagesDigest: digests.messages.at(messages, messages.length),
    callIdsFrom,
    callIds: callIds.slice(callIdsFrom),
    callIdsDigest: digests.callIds.at(callIds, callIds.length),
    acceptedCallIds: accepted,
  };
  const asked = transcriptPageSchema.safeParse(page);
  if (!asked.success) return answer;
  const text = tailText(digests, messages, messagesFrom);
  const maxChars = Math.min(asked.data.maxChars, maxPageChars);
  if (text.length <= maxChars && asked.data.offset === 0) return answer;
  const offset = Math.min(asked.data.offset, text.length);
  // The last page served: the text is not held for a read that has what it needs.
  if (offset + maxChars >= text.length) digests.pagedTail = undefined;
  return {
    ...answer,
    messages: [],
    ...(offset > 0 ? { callIds: [] } : {}),
    messagesPage: { offset, text: text.slice(offset, offset + maxChars), length: text.length },
  };
}

/** The JSON of `messages` from `from` on, written once for all the pages of one read. */
function tailText(digests: TranscriptDigests, messages: readonly Message[], from: number): string {
  const held = digests.pagedTail;
  const last = messages[messages.length - 1];
  if (held && held.from === from && held.count === messages.length && held.last === last) return held.text;
  const text = JSON.stringify(messages.slice(from));
  digests.pagedTail = { from, count: messages.length, last, text };
  return text;
}

/** Where a held context ends: how many messages and call ids it has. */
export interface HeldCounts {
  messageCount: number;
  callIdCount: number;
}

/**
 * The request's context to send with it (see `inlineRequestContextSchema`): what the query would
 * answer an asker holding the first `held` messages and call ids, with their digests — or, when
 * that tail is larger than `maxChars` of JSON, `offered` instead: the same context, to hand to this
 * workflow's worker outside history (a sink), while the request carries only its name (history
 * stays flat per request however large a wave's outputs; another worker reads it by query).
 */
export function inlineRequestContext({
  view,
  epoch,
  held,
  digests,
  maxChars,
}: {
  view: Readonly<TurnState>;
  epoch: string;
  held: HeldCounts;
  digests: TranscriptDigests;
  maxChars: number;
}): { context?: InlineRequestContext; offered?: InlineRequestContext; reads: HeldCounts } {
  const { accepted, callIds, messages } = requestLists(view);
  const reads = { messageCount: messages.length, callIdCount: callIds.length };
  if (!view.modelInFlight) return { reads };
  const messagesFrom = held.messageCount <= messages.length ? held.messageCount : 0;
  const callIdsFrom = held.callIdCount <= callIds.length ? held.callIdCount : 0;
  const tail = messages.slice(messagesFrom);
  const fits = JSON.stringify(tail).length <= maxChars;
  const context: InlineRequestContext = {
    epoch,
    messagesFrom,
    heldMessagesDigest: digests.messages.at(messages, messagesFrom),
    messages: tail,
    messagesDigest: digests.messages.at(messages, messages.length),
    callIdsFrom,
    heldCallIdsDigest: digests.callIds.at(callIds, callIdsFrom),
    callIds: callIds.slice(callIdsFrom),
    callIdsDigest: digests.callIds.at(callIds, callIds.length),
    acceptedCallIds: accepted,
  };
  return fits ? { reads, context } : { reads, offered: context };
}

/** A context's name (see `OfferedRequestContext`): what a worker holding all of it holds. */
export function offeredContextName(context: InlineRequestContext): OfferedRequestContext {
  return {
    epoch: context.epoch,
    messageCount: context.messagesFrom + context.messages.length,
    messagesDigest: context.messagesDigest,
    callIdCount: context.callIdsFrom + context.callIds.length,
    callIdsDigest: context.callIdsDigest,
    acceptedCallIds: context.acceptedCallIds,
  };
}

/** What a request reads: the transcript, and the turn's call ids less this response's accepted ones. */
function requestLists(view: Readonly<TurnState>) {
  const accepted = view.batch?.streamOpen ? view.batch.calls.map((c) => c.call.toolCallId) : [];
  const acceptedIds = new Set(accepted);
  const callIds = [...view.callIds].filter((id) => !acceptedIds.has(id));
  return { accepted, callIds, messages: view.messages };
}

function stillHolds(
  known: KnownTranscript,
  now: {
    epoch: string;
    messages: readonly Message[];
    callIds: readonly string[];
    digests: TranscriptDigests;
  },
): boolean {
  if (known.epoch !== now.epoch) return false;
  if (known.messageCount > now.messages.length || known.callIdCount > now.callIds.length) return false;
  return (
    now.digests.messages.at(now.messages, known.messageCount) === known.messagesDigest &&
    now.digests.callIds.at(now.callIds, known.callIdCount) === known.callIdsDigest
  );
}

// Messages are values: once appended they are never changed, so a message object's digest is
// computed once (a tool message of large outputs can be megabytes).
const digests = new WeakMap<Message, string>();

function messageDigest(message: Message): string {
  let digest = digests.get(message);
  if (digest === undefined) {
    digest = stableHash(JSON.stringify(message));
    digests.set(message, digest);
  }
  return digest;
}
