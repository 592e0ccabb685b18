import type { KnownTranscript } from '../contract/turn-workflow';
import type { Message } from '../core';

/** A turn's transcript as this worker last read it from the turn's workflow. */
export interface HeldTranscript {
  /** The workflow chain it was read from (see `KnownTranscript.epoch`). */
  epoch: string;
  messages: readonly Message[];
  messagesDigest: string;
  callIds: readonly string[];
  callIdsDigest: string;
  /** About how much memory it holds: the JSON length of its messages. */
  bytes: number;
}

export interface TranscriptCacheOptions {
  /** Turns held at most; the least recently used goes first. */
  maxTurns?: number;
  /** JSON characters held at most over all turns (a turn of large outputs can be many megabytes). */
  maxBytes?: number;
  /** A turn not read for this long is dropped (it finished, or its requests run elsewhere). */
  idleMs?: number;
  now?: () => number;
}

/**
 * The transcripts this worker's model requests have read, by workflow id, so the next request of
 * the same turn asks its workflow only for what is new. Bounded by turns and by size, least
 * recently used out first. It is only ever a hint: the workflow confirms a held prefix before it
 * sends just the rest, and answers in full when it does not match (see `answerModelRequest`).
 *
 * Held messages are shared with the model requests that read them: models treat a request's
 * messages as read-only, as they must on the in-process executor too.
 */
export class TranscriptCache {
  private readonly held = new Map<string, HeldTranscript & { usedAt: number }>();
  private heldBytes = 0;
  private readonly maxTurns: number;
  private readonly maxBytes: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  /**
   * Reads answered with only the new part of the transcript, reads answered in full, requests
   * whose context came with them, and requests whose context their workflow's task handed this
   * worker before they began (the last two ask no query).
   */
  readonly reads = { incremental: 0, full: 0, inline: 0, offered: 0 };

  constructor({
    // Bounded by size, not by a small count: with more turns running than it holds, least recently
    // used first evicts each turn just before its next request, so every request read the whole
    // transcript (20 turns on one worker under a bound of 16 made two reads in three full ones).
    maxTurns = 1_000,
    maxBytes = 256 * 1024 * 1024,
    idleMs = 10 * 60_000,
    now = Date.now,
  }: TranscriptCacheOptions = {}) {
    this.maxTurns = maxTurns;
    this.maxBytes = maxBytes;
    this.idleMs = idleMs;
    this.now = now;
  }

  get(workflowId: string): HeldTranscript | undefined {
    this.dropIdle();
    return this.held.get(workflowId);
  }

  set(workflowId: string, transcript: HeldTranscript): void {
    this.forget(workflowId);
    // Re-inserted last: the map's order is least recently used first.
    this.held.set(workflowId, { ...transcript, usedAt: this.now() });
    this.heldBytes += transcript.bytes;
    for (const [id] of this.held) {
      if (this.held.size <= this.maxTurns && this.heldBytes <= this.maxBytes) break;
      this.forget(id);
    }
  }

  forget(workflowId: string): void {
    const entry = this.held.get(workflowId);
    if (!entry) return;
    this.held.delete(workflowId);
    this.heldBytes -= entry.bytes;
  }

  get size(): { turns: number; bytes: number } {
    return { turns: this.held.size, bytes: this.heldBytes };
  }

  private dropIdle(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [id, entry] of this.held) {
      if (entry.usedAt > cutoff) break;
      this.forget(id);
    }
  }
}

/** What to tell the workflow this worker holds of a turn. */
export function knownOf(held: HeldTranscript): KnownTranscript {
  return {
    epoch: held.epoch,
    messageCount: held.messages.length,
    messagesDigest: held.messagesDigest,
    callIdCount: held.callIds.length,
    callIdsDigest: held.callIdsDigest,
  };
}
