import { Counter } from 'prom-client';
import { turnSearchAttributes } from '../contract/search-attributes';
import { turnWorkflowType } from '../contract/turn-workflow';
import type { TurnGaugeSource, TurnMetrics } from './turn-metrics';

/** What a Temporal `WorkflowClient` offers for counting (`client.workflow`). */
export interface VisibilityCounter {
  count(query: string): Promise<{ count: number }>;
}

export interface VisibilityTurnGaugesOptions {
  metrics: TurnMetrics;
  workflows: VisibilityCounter;
  /** The namespace `workflows` counts in: sources for the same namespace and task queue count once. */
  namespace?: string;
  /** Count only the turns of this task queue (default: every turn in the namespace). */
  taskQueue?: string;
  /** Scrapes within this long of the last count share it (default 10 s): a count is a server query. */
  maxAgeMs?: number;
  /** The clock for `maxAgeMs`, in milliseconds (default `performance.now`). */
  now?: () => number;
}

/**
 * `durable_turns_open_turns` and `durable_turns_turns_waiting_for_approval` for turns on Temporal,
 * from Visibility counts (the `DurableTurnWaitingForApproval` search attribute the workflow keeps).
 * A worker cannot count them itself: a turn's workflow moves between workers, and counters
 * added up across workers drift whenever one restarts. Every worker that reports them reports
 * the same cluster-wide figure, so aggregate with `max`, not `sum`. Counts are eventually
 * consistent (seconds). When counting fails the gauges read NaN (unknown), and
 * `durable_turns_visibility_count_errors_total` goes up.
 */
export function visibilityTurnGauges({
  metrics,
  workflows,
  namespace = '',
  taskQueue,
  maxAgeMs = 10_000,
  now = () => performance.now(),
}: VisibilityTurnGaugesOptions): TurnGaugeSource {
  let last: { at: number; counts: Promise<{ open: number; waiting: number }> } | undefined;
  const errors = visibilityErrorsCounter(metrics);
  const scope = [
    `WorkflowType = '${turnWorkflowType}'`,
    `ExecutionStatus = 'Running'`,
    ...(taskQueue ? [`TaskQueue = '${taskQueue.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`] : []),
  ].join(' AND ');
  const waitingQuery = `${scope} AND ${turnSearchAttributes.waitingForApproval.name} = true`;
  const counts = () => {
    if (last && now() - last.at < maxAgeMs) return last.counts;
    const counting = Promise.all([workflows.count(scope), workflows.count(waitingQuery)]).then(
      ([open, waiting]) => ({ open: open.count, waiting: waiting.count }),
      () => {
        errors.inc();
        last = undefined; // The next scrape tries again.
        return { open: Number.NaN, waiting: Number.NaN };
      },
    );
    last = { at: now(), counts: counting };
    return counting;
  };
  const source: TurnGaugeSource & { settled(): Promise<unknown> } = {
    openTurns: async () => (await counts()).open,
    turnsWaitingForApproval: async () => (await counts()).waiting,
    settled: async () => last?.counts,
  };
  if (metrics.addTurnGauges({ source, key: `visibility ${namespace}: ${scope}` })) errors.sources.add(source);
  return source;
}

const errorsName = 'durable_turns_visibility_count_errors_total';
type ErrorsCounter = Counter & { sources: Set<{ settled(): Promise<unknown> }> };

/**
 * One counter per registry, shared by its sources. Its collection waits for their counts in
 * flight (a scrape collects every metric at once), so a failure shows in the scrape it spoiled.
 */
function visibilityErrorsCounter(metrics: TurnMetrics): ErrorsCounter {
  const existing = metrics.registry.getSingleMetric(errorsName) as ErrorsCounter | undefined;
  if (existing) return existing;
  const sources = new Set<{ settled(): Promise<unknown> }>();
  const counter = new Counter({
    name: errorsName,
    help: 'Visibility counts (for the open-turn gauges) that failed.',
    registers: [metrics.registry],
    async collect() {
      // Let the gauges start this scrape's counts first.
      await Promise.resolve();
      await Promise.all([...sources].map((source) => source.settled()));
    },
  });
  return Object.assign(counter, { sources });
}
