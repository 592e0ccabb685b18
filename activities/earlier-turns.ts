import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { modelRejectedType } from '../contract/activities';
import { conversationStateQuery, conversationWorkflowId } from '../contract/conversation-workflow';
import { unpackJson } from '../contract/packed-json';
import { packedResultQuery, type TurnWorkflowResult } from '../contract/turn-workflow';
import {
  type ConversationOrigin,
  checkOriginAgainst,
  type TranscriptEvent,
  type TurnContext,
  turnContext,
} from '../core';

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

/**
 * Checks that a conversation a branch came from is still the one it came from (its state's
 * incarnation, by query), before a turn of it is read: a deleted source fails the branch's request
 * at once, saying so (not retried), instead of reading nothing or another conversation's turns.
 */
export function checkOriginOnTemporal(client: Client) {
  return async (origin: ConversationOrigin[number]): Promise<void> => {
    const current = await client.workflow
      .getHandle(conversationWorkflowId(origin.conversationId))
      .query(conversationStateQuery)
      .then(
        (state) => state.incarnation ?? null,
        (error: unknown) => {
          if (error instanceof WorkflowNotFoundError) return undefined;
          throw error;
        },
      );
    try {
      checkOriginAgainst(origin, current);
    } catch (error) {
      throw ApplicationFailure.nonRetryable(
        error instanceof Error ? error.message : String(error),
        modelRejectedType,
      );
    }
  };
}
