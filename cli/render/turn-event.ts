import type { JournalEntry } from '../../core';

/**
 * What the renderers are fed. Today a turn's progress arrives as journal entries (`TurnHandle.watch`);
 * a model's text streamed before its response completes will come as `text-delta` events, which
 * the display already folds in (the whole response then replaces the streamed text).
 */
export type TurnEvent =
  | { kind: 'entry'; seq: number; entry: JournalEntry }
  | { kind: 'text-delta'; responseIndex: number; text: string };
