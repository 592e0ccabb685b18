import { setCurrentDetails } from '@temporalio/workflow';
// The SDK keeps a run's current details on its activator; not in its index, so from its module.
import { maybeGetActivator } from '@temporalio/workflow/lib/global-attributes';

/**
 * A run's current details for the Temporal Web UI (markdown: no command, nothing in history; the
 * `__temporal_workflow_metadata` query reads them), rendered when they are read instead of each time
 * the turn's phase or progress changes. A quick call changes both once per call, and rendering
 * there cost ~30 µs of the ~0.5 ms the workflow thread spends on such a call; a query is rare. What
 * a reader gets is the phase last shown with the turn's counts as they are when it reads.
 *
 * The SDK answers the query from its activator's `currentDetails` field, which becomes a getter
 * here. Should an SDK keep them elsewhere (no writable string field to take over), they are
 * rendered at each `show`, through `setCurrentDetails`, as before.
 */
export class CurrentDetails {
  private phase = '';
  private rendered: { seq: number; phase: string; text: string } | undefined;
  private readonly lazy: boolean;
  private readonly render: (phase: string) => string;
  private readonly progressSeq: () => number;
  private readonly set: (details: string) => void;

  constructor({
    render,
    progressSeq,
    activator = maybeGetActivator(),
    set = setCurrentDetails,
  }: {
    render: (phase: string) => string;
    /** Moves whenever the turn records something: what the counts depend on. */
    progressSeq: () => number;
    /** The run's activator, where the SDK keeps the details (default: this run's). */
    activator?: object | undefined;
    /** How details are set where they cannot be read on demand (default: `setCurrentDetails`). */
    set?: (details: string) => void;
  }) {
    this.render = render;
    this.progressSeq = progressSeq;
    this.set = set;
    this.lazy = activator !== undefined && readOnDemand(activator, () => this.text());
  }

  /** What the turn is doing now. */
  show(phase: string): void {
    this.phase = phase;
    if (!this.lazy) this.set(this.text());
  }

  /** Rendered again only when the turn recorded something or the phase changed since the last read. */
  private text(): string {
    const seq = this.progressSeq();
    const last = this.rendered;
    if (last && last.seq === seq && last.phase === this.phase) return last.text;
    const text = this.render(this.phase);
    this.rendered = { seq, phase: this.phase, text };
    return text;
  }
}

/** Makes the activator's `currentDetails` read `text()`; false where that field is not there to take. */
function readOnDemand(activator: object, text: () => string): boolean {
  const field = Object.getOwnPropertyDescriptor(activator, 'currentDetails');
  if (!field?.writable || !field.configurable || typeof field.value !== 'string') return false;
  Object.defineProperty(activator, 'currentDetails', {
    configurable: true,
    enumerable: field.enumerable ?? true,
    get: text,
    // Details set by other code (`setCurrentDetails`) win from then on, as a plain field.
    set: (value: unknown) =>
      Object.defineProperty(activator, 'currentDetails', {
        value,
        writable: true,
        configurable: true,
        enumerable: field.enumerable ?? true,
      }),
  });
  return true;
}
