import { type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import { unpackJson } from '../contract/packed-json';
import { packedResultQuery, type TurnWorkflowResult } from '../contract/turn-workflow';
import { DurableTurnsError, messagesFromEvents, outputsFromEvents, type TurnResult } from '../core';
import { pause } from './abortable-pause';

/** The workflow's compact result as callers want it: outputs are rebuilt from the events (each once). */
export function unpackResult(result: TurnWorkflowResult): TurnResult {
  const { packed, packedLength: _length, ...summary } = result;
  const { events, notices } = unpackJson<{ events: TurnResult['events']; notices: Record<string, string> }>(
    packed,
  );
  const started = events[0];
  const inputLength = started?.type === 'turn.started' ? started.input.length : 0;
  const transcript = messagesFromEvents(events, notices).slice(inputLength);
  const outputs = outputsFromEvents(events, notices);
  return { ...summary, outputs, transcript, events };
}

/**
 * A transcript too long for the workflow's result (see `resultInlineMaxChars`), read from the
 * closed workflow in pages: a worker of its task queue answers, replaying its history.
 */
export async function readPackedResult(
  turnId: string,
  workflow: WorkflowHandle,
  { status, packedLength }: TurnWorkflowResult,
): Promise<string> {
  const length = packedLength ?? 0;
  const pages: string[] = [];
  let read = 0;
  while (read < length) {
    let page: string;
    try {
      page = await pageOfResult(workflow, read);
    } catch (error) {
      throw new DurableTurnsError(
        `turn ${turnId} ended ${status}, and its transcript (${length} characters packed) is more than a workflow result carries, so it is read from the workflow by query, which a worker of its task queue answers: ${error instanceof Error ? error.message : String(error)}`,
        { code: 'result-unreadable', cause: error },
      );
    }
    if (page.length === 0) break;
    pages.push(page);
    read += page.length;
  }
  if (read !== length)
    throw new DurableTurnsError(
      `turn ${turnId}'s transcript read back as ${read} characters of the ${length} its result names`,
      { code: 'result-unreadable' },
    );
  return pages.join('');
}

/**
 * One page, asked up to five times a second apart: the worker replays a closed turn's history
 * to answer, and a busy one (or a server under load) may not answer the first time.
 */
async function pageOfResult(workflow: WorkflowHandle, offset: number): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await workflow.query(packedResultQuery, offset);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError || attempt >= 5) throw error;
      await pause({ ms: 1_000, signal: undefined });
    }
  }
}
