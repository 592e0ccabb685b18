import type { Client } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { unpackJson } from '../contract/packed-json';
import { packedResultQuery, type TurnWorkflowResult } from '../contract/turn-workflow';
import { type Message, messagesFromEvents, type TranscriptEvent } from '../core';

/**
 * The messages of a conversation's earlier turns, which a turn's model requests send before its
 * own: read from each turn's result (its close event; a result too long for one is read by query),
 * never copied into the asking turn's history. A worker keeps them: a closed turn never changes, so
 * each is read once per worker, however many requests follow. Bounded by turns held.
 */
export class EarlierTurns {
  private readonly held = new Map<string, Message[]>();

  constructor(private readonly maxTurns = 2_000) {}

  async before({
    conversationId,
    turnNumber,
    read,
  }: {
    conversationId: string;
    turnNumber: number;
    read: (turnId: string) => Promise<Message[]>;
  }): Promise<Message[]> {
    const messages: Message[] = [];
    for (let n = 1; n < turnNumber; n++) {
      const turnId = `${conversationId}#${n}`;
      let turn = this.held.get(turnId);
      if (!turn) {
        turn = await read(turnId);
        this.held.set(turnId, turn);
        if (this.held.size > this.maxTurns) this.held.delete(this.held.keys().next().value as string);
      }
      messages.push(...turn);
    }
    return messages;
  }
}

/**
 * A closed turn's messages, its input first. A turn that ended without a result (terminated, timed
 * out) left no transcript: it gives none, and the conversation goes on without it.
 */
export async function readTurnMessages(client: Client, turnId: string): Promise<Message[]> {
  const workflow = client.workflow.getHandle(turnId);
  let result: TurnWorkflowResult;
  try {
    result = (await workflow.result()) as TurnWorkflowResult;
  } catch (error) {
    if (error instanceof WorkflowFailedError) return [];
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
  return messagesFromEvents(events, notices);
}
