import type { Client } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { unpackJson } from '../contract/packed-json';
import { packedResultQuery, type TurnWorkflowResult } from '../contract/turn-workflow';
import { type TranscriptEvent, type TurnContext, turnContext } from '../core';

/**
 * A closed turn as later requests send it (`turnContext`: its messages, its input first, or its
 * compacted context). A turn that ended without a result (terminated, timed out) left no transcript:
 * it gives none, and the conversation goes on without it.
 */
export async function readTurnContext(client: Client, turnId: string): Promise<TurnContext> {
  const workflow = client.workflow.getHandle(turnId);
  let result: TurnWorkflowResult;
  try {
    result = (await workflow.result()) as TurnWorkflowResult;
  } catch (error) {
    if (error instanceof WorkflowFailedError) return { messages: [], replacesEarlier: false };
    throw error;
  }
  let packed = result.packed;
  if (result.packedLength !== undefined) {
    const pages: string[] = [];
    for (let read = 0; read < result.packedLength; ) {
      const page = await workflow.query(packedResultQuery, read);
      if (page.length === 0) break;
      pages.push(page);
      read += page.length;
    }
    packed = pages.join('');
  }
  const { events, notices } = unpackJson<{ events: TranscriptEvent[]; notices: Record<string, string> }>(
    packed,
  );
  return turnContext(events, notices);
}
