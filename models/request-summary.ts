import {
  type CompactionCall,
  compactionRequestMessages,
  type Message,
  ModelError,
  type TurnModel,
  type Usage,
} from '../core';
import { ResponseCollector } from '../core/model/collect-response';

/**
 * A `compact` operation's summary request, the same on both hosts: the request as
 * `compactionRequestMessages` builds it, sent with no tools (`purpose: 'compaction'`), its text the
 * summary. Nothing to summarise, or an answer without text, is a failure no retry helps.
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
}): Promise<{ summary: string; usage: Usage; finishReason: string }> {
  const recorded = compactionRequestMessages({ op, earlier: op.previous ? [] : earlier });
  if (!recorded)
    throw new ModelError(
      'the context is too long, and there is nothing before the message being answered to summarise',
      false,
      undefined,
      { kind: 'context-overflow' },
    );
  onRequest?.(recorded);
  const messages = readFiles ? await readFiles(recorded) : recorded;
  const collector = new ResponseCollector();
  for await (const part of model.stream({
    turnId,
    responseIndex,
    messages,
    tools: [],
    idempotencyKey: op.idempotencyKey,
    signal,
    purpose: 'compaction',
  }))
    collector.add(part);
  const { parts, usage, finishReason } = collector.result();
  const summary = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  if (summary.trim() === '')
    throw new ModelError('the model answered the summary request without text', false);
  return { summary, usage, finishReason };
}
