import { type LiveChannel, type LiveTextDetails, liveTextWindowChars } from '../contract/live-text';
import type { ModelStreamPart } from '../core';

/**
 * The text and reasoning a model request has streamed so far, as heartbeat details (see
 * `liveTextDetailsSchema`): every heartbeat of the model activity carries them, since a heartbeat
 * without details would blank what watchers read.
 */
export class LiveText {
  private text = '';
  private reasoning = '';
  private cached: LiveTextDetails | undefined;

  private readonly responseIndex: number;
  private readonly attempt: number;
  private readonly windowChars: number;

  constructor({
    responseIndex,
    attempt,
    windowChars = liveTextWindowChars,
  }: {
    responseIndex: number;
    attempt: number;
    windowChars?: number;
  }) {
    this.responseIndex = responseIndex;
    this.attempt = attempt;
    this.windowChars = windowChars;
  }

  add(part: ModelStreamPart): void {
    if (part.type === 'text-delta') this.text += part.delta;
    else if (part.type === 'reasoning-delta') this.reasoning += part.delta;
    else return;
    this.cached = undefined;
  }

  /** The details to heartbeat now (the same object until more text arrives). */
  details(): LiveTextDetails {
    this.cached ??= {
      liveText: 1,
      responseIndex: this.responseIndex,
      attempt: this.attempt,
      text: tailOf({ text: this.text, windowChars: this.windowChars }),
      reasoning: tailOf({ text: this.reasoning, windowChars: this.windowChars }),
    };
    return this.cached;
  }
}

/** The last `windowChars` of `text`, never starting inside a surrogate pair. */
export function tailOf({ text, windowChars }: { text: string; windowChars: number }): LiveChannel {
  let from = Math.max(0, text.length - windowChars);
  const first = text.charCodeAt(from);
  if (from > 0 && first >= 0xdc00 && first <= 0xdfff) from += 1;
  return { from, tail: text.slice(from) };
}
