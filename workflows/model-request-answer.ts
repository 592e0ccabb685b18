import { type Message, stableHash, type TurnState } from '../core';
import { type KnownTranscript, knownTranscriptSchema, type ModelRequestContext } from './definitions';

/**
 * Answers the model activity's query for its request context. The activity says what it already
 * holds (`known`); when that is still a prefix of the transcript — the same run, the last known
 * message unchanged, the last known call id in its place — only what came after it is sent, so a
 * request late in a long turn reads the two newest messages instead of the whole transcript.
 * Anything else (another run, a changed message, a malformed `known`) gets the whole transcript.
 */
export function answerModelRequest({
  view,
  responseIndex,
  epoch,
  known,
}: {
  view: Readonly<TurnState>;
  responseIndex: number;
  /** This workflow run's id: messages and call ids are only ever appended within one run. */
  epoch: string;
  /** What the asker holds; not trusted (it crosses a boundary). */
  known: unknown;
}): ModelRequestContext | null {
  if (!view.modelInFlight || view.responseIndex !== responseIndex) return null;
  const accepted = view.batch?.streamOpen ? view.batch.calls.map((c) => c.call.toolCallId) : [];
  const acceptedIds = new Set(accepted);
  const callIds = [...view.callIds].filter((id) => !acceptedIds.has(id));
  const messages = view.messages;
  const parsed = knownTranscriptSchema.safeParse(known);
  const prefix =
    parsed.success && stillHolds(parsed.data, { epoch, messages, callIds }) ? parsed.data : undefined;
  const messagesFrom = prefix?.messageCount ?? 0;
  const callIdsFrom = prefix?.callIdCount ?? 0;
  const last = messages.at(-1);
  return {
    responseIndex,
    epoch,
    messagesFrom,
    messages: messages.slice(messagesFrom),
    lastMessageDigest: last ? messageDigest(last) : '',
    callIdsFrom,
    callIds: callIds.slice(callIdsFrom),
    acceptedCallIds: accepted,
  };
}

function stillHolds(
  known: KnownTranscript,
  now: { epoch: string; messages: readonly Message[]; callIds: readonly string[] },
): boolean {
  if (known.epoch !== now.epoch) return false;
  if (known.messageCount > now.messages.length || known.callIdCount > now.callIds.length) return false;
  const lastMessage = now.messages[known.messageCount - 1];
  if (known.messageCount > 0 && (!lastMessage || messageDigest(lastMessage) !== known.lastMessageDigest))
    return false;
  return known.callIdCount === 0 || now.callIds[known.callIdCount - 1] === known.lastCallId;
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
