import { z } from 'zod';

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

// Host-independent: defined in core/ (the in-process executor's `watch` yields them too).
export type { LiveChannelName, TurnWatchEvent } from '../core';
