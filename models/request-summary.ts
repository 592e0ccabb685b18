import {
  addUsage,
  type CompactionCall,
  compactionRequestMessages,
  type Message,
  ModelError,
  type TurnModel,
  type Usage,
} from '../core';
import { ResponseCollector } from '../core/model/collect-response';

/**
 * How many times a summary request the model refuses as too long is split in halves (a part of a
 * part …): up to 2^6 parts, each asked separately. A single message too long alone is not split.
 */
const maxSplitDepth = 6;

interface Summary {
  summary: string;
  usage: Usage;
  finishReason: string;
}

/**
 * A `compact` operation's summary request, the same on both hosts: the request as
 * `compactionRequestMessages` builds it, sent with no tools (`purpose: 'compaction'`), its text the
 * summary. Nothing to summarise, or an answer without text, is a failure no retry helps.
 *
 * What is to be summarised may itself be too long for the model (a conversation's earlier turns
 * with a turn's own messages): then it is summarised in parts, in order — the older half first,
 * then that summary with the newer half — halving again where a part is still too long, so a long
 * conversation is compacted rather than failed for its length. Each part is a request of its own
 * (its idempotency key the compaction's with the part's place); their tokens add up.
 */
export async function requestSummary({
  model,
  turnId,
  responseIndex,
  op,
  earlier,
  readFiles,
  signal,
  onRequest,
}: {
  model: TurnModel;
  turnId: string;
  /** The response the compaction comes before. */
  responseIndex: number;
  op: CompactionCall;
  /** The conversation's earlier turns (none once a previous compaction covers them). */
  earlier: readonly Message[];
  readFiles?: (messages: readonly Message[]) => Promise<Message[]>;
  signal: AbortSignal;
  /** Told the request's messages once they are built (for tracing). */
  onRequest?: (messages: readonly Message[]) => void;
}): Promise<Summary> {
  const recorded = compactionRequestMessages({ op, earlier: op.previous ? [] : earlier });
  if (!recorded)
    throw new ModelError(
      'the context is too long, and there is nothing before the message being answered to summarise',
      false,
      undefined,
      { kind: 'context-overflow' },
    );
  onRequest?.(recorded);
  const instruction = recorded.slice(-1);
  const ask = async (body: readonly Message[], part: string): Promise<Summary> => {
    const request = [...body, ...instruction];
    const collector = new ResponseCollector();
    for await (const streamed of model.stream({
      turnId,
      responseIndex,
      messages: readFiles ? await readFiles(request) : request,
      tools: [],
      idempotencyKey: part === '' ? op.idempotencyKey : `${op.idempotencyKey}/part-${part}`,
      signal,
      purpose: 'compaction',
    }))
      collector.add(streamed);
    const { parts, usage, finishReason } = collector.result();
    const summary = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    if (summary.trim() === '')
      throw new ModelError('the model answered the summary request without text', false);
    return { summary, usage, finishReason };
  };
  const summarise = async (body: readonly Message[], part: string): Promise<Summary> => {
    try {
      return await ask(body, part);
    } catch (error) {
      const tooLong = ModelError.isInstance(error) && error.kind === 'context-overflow';
      if (!tooLong || body.length < 2 || part.length >= maxSplitDepth) throw error;
      const half = Math.ceil(body.length / 2);
      const older = await summarise(body.slice(0, half), `${part}1`);
      const newer = await summarise([olderPart(older.summary), ...body.slice(half)], `${part}2`);
      return { ...newer, usage: addUsage(older.usage, newer.usage) };
    }
  };
  return summarise(recorded.slice(0, -1), '');
}

/** The summary of the older part, as the newer part's request begins with it. */
function olderPart(summary: string): Message {
  return { role: 'user', content: `Summary of the earlier part of this conversation:\n${summary}` };
}
