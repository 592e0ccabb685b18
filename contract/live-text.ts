import { z } from 'zod';
import type { ProgressEntry } from './turn-workflow';

/**
 * How much of each channel's text the model activity's heartbeat carries: the tail of what has
 * streamed so far. Heartbeat details are a payload (the server warns at 512 KiB and refuses 2 MiB);
 * two channels of 8 Ki UTF-16 units stay far below, even JSON-escaped. A watcher that falls further
 * behind than this between two looks sees an explicit gap, never a wrong text.
 */
export const liveTextWindowChars = 8_192;

/** One channel's text so far, as its tail: `tail` is the text from offset `from` to its end. */
export const liveChannelSchema = z.object({
  from: z.number().int().nonnegative(),
  tail: z.string(),
});
export type LiveChannel = z.infer<typeof liveChannelSchema>;

/**
 * What the model activity heartbeats while it streams: the response's text and reasoning so far.
 * Heartbeat details are kept by the server with the pending activity (`describe()` shows them) and
 * never written to history while the activity runs — no event, no workflow task, no update slot.
 * The text only grows during one attempt, so a watcher can place every tail by its offset.
 */
export const liveTextDetailsSchema = z.object({
  liveText: z.literal(1),
  responseIndex: z.number().int().nonnegative(),
  /**
   * The activity attempt that streamed it (Temporal keeps a failed attempt's last details while the
   * next one waits to start, under a pending activity that already shows the next attempt number).
   */
  attempt: z.number().int().positive(),
  text: liveChannelSchema,
  reasoning: liveChannelSchema,
});
export type LiveTextDetails = z.infer<typeof liveTextDetailsSchema>;

export type LiveChannelName = 'text' | 'reasoning';

/**
 * What `TurnHandle.watch` yields. Per response, the `delta`s of each channel add up, in order and
 * without repeats, to the text of its `model.responded` entry, and all come before it: a watcher that
 * saw only part of the stream (it joined late, or fell behind the window) gets a `gap` for what it
 * missed, and at the response's end a `restart` followed by the whole text as one delta. A response
 * that never completes (the turn was cancelled or failed meanwhile) just stops.
 */
export type TurnWatchEvent =
  /** A journal entry (as `ProgressEntry`), numbered across the turn's runs. */
  | ({ kind: 'entry' } & ProgressEntry)
  /** `delta` continues the channel's text of response `responseIndex` at `offset`. */
  | { kind: 'delta'; responseIndex: number; channel: LiveChannelName; offset: number; delta: string }
  /** The channel's text from `offset` for `length` units streamed while this watcher was not looking. */
  | { kind: 'gap'; responseIndex: number; channel: LiveChannelName; offset: number; length: number }
  /**
   * What this watcher was shown of the response so far no longer stands (the request was asked
   * again, or there were gaps and the final text follows whole): start the response over.
   */
  | { kind: 'restart'; responseIndex: number };
