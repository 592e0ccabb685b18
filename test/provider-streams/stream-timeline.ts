/** What happened, in the order it happened: a tool call started, or a response's final event went out. */
export type TimelineEntry =
  | { kind: 'call-started'; toolCallId: string }
  | { kind: 'response-ended'; step: number };

/**
 * The order of tool starts and response ends, as they happened in this process (the replay server,
 * the in-process executor and a test's Temporal worker all run here). The replay server holds each
 * response's final event until the calls the recording completed before it have started, or until
 * `holdLimitMs` has passed: a call that starts at all before its response ends is seen to, without
 * guessing how long that may take; a call that does not waits out the limit and is seen after it.
 * The limit is waited out only by a run that fails (every expected call must start first), so it
 * is generous: a cold Temporal worker on a loaded machine took over 2 s to start the first call
 * of its first conversation (a hand-over Update, a workflow task, an activity dispatch).
 */
export class StreamTimeline {
  readonly entries: TimelineEntry[] = [];
  private readonly waiting = new Set<() => void>();

  constructor(
    /** The calls of each step (1-based) that a consumer may run before that response ends. */
    private readonly callsOfStep: (step: number) => readonly string[],
    private readonly holdLimitMs = 30_000,
  ) {}

  callStarted(toolCallId: string): void {
    this.entries.push({ kind: 'call-started', toolCallId });
    for (const wake of this.waiting) wake();
  }

  /** Resolves when the step's final event may go out, and marks that it does. */
  async beforeResponseEnds(step: number): Promise<void> {
    const expected = this.callsOfStep(step);
    const allStarted = () => expected.every((id) => this.startIndex(id) >= 0);
    if (!allStarted()) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          if (!allStarted()) return;
          clearTimeout(timer);
          this.waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(() => {
          this.waiting.delete(wake);
          resolve();
        }, this.holdLimitMs);
        this.waiting.add(wake);
      });
    }
    this.entries.push({ kind: 'response-ended', step });
  }

  /** Where the call first started in the timeline; -1 when it never did. */
  startIndex(toolCallId: string): number {
    return this.entries.findIndex((e) => e.kind === 'call-started' && e.toolCallId === toolCallId);
  }

  /** Where the step's response first ended; -1 when it never did. */
  endIndex(step: number): number {
    return this.entries.findIndex((e) => e.kind === 'response-ended' && e.step === step);
  }
}
