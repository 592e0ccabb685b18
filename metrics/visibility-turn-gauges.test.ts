import { parsePrometheusText, sampleValue } from '../test/support/prometheus-text';
import { TurnMetrics } from './turn-metrics';
import { type VisibilityCounter, visibilityTurnGauges } from './visibility-turn-gauges';

/** A Visibility store of fixed counts that records the queries it was asked. */
function store(counts: { open: number; waiting: number }) {
  const queries: string[] = [];
  let failing = false;
  const workflows: VisibilityCounter = {
    count: async (query) => {
      queries.push(query);
      if (failing) throw new Error('visibility unavailable');
      return { count: query.includes('DurableTurnWaitingForApproval = true') ? counts.waiting : counts.open };
    },
  };
  return { workflows, queries, fail: (on: boolean) => (failing = on) };
}

const gauges = async (metrics: TurnMetrics) => {
  const samples = parsePrometheusText(await metrics.registry.metrics());
  return {
    open: sampleValue(samples, 'durable_turns_open_turns'),
    waiting: sampleValue(samples, 'durable_turns_turns_waiting_for_approval'),
    errors: sampleValue(samples, 'durable_turns_visibility_count_errors_total'),
  };
};

test("counts the task queue's running turns, and those waiting for approval, through Visibility", async () => {
  const metrics = new TurnMetrics();
  const { workflows, queries } = store({ open: 7, waiting: 2 });
  visibilityTurnGauges({ metrics, workflows, taskQueue: "turns'q" });
  expect(await gauges(metrics)).toEqual({ open: 7, waiting: 2, errors: 0 });
  expect(queries.sort()).toEqual([
    "WorkflowType = 'turnWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = 'turns\\'q'",
    "WorkflowType = 'turnWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = 'turns\\'q' AND DurableTurnWaitingForApproval = true",
  ]);
});

test('scrapes within maxAgeMs share one count; a later scrape counts again', async () => {
  const metrics = new TurnMetrics();
  const { workflows, queries } = store({ open: 1, waiting: 0 });
  let now = 0;
  visibilityTurnGauges({ metrics, workflows, maxAgeMs: 1_000, now: () => now });
  await gauges(metrics);
  now = 999;
  await gauges(metrics);
  expect(queries).toHaveLength(2); // one count of each kind, for both scrapes
  now = 1_000;
  await gauges(metrics);
  expect(queries).toHaveLength(4);
});

test('a failed count reads as NaN (unknown) and is counted, and the next scrape tries again', async () => {
  const metrics = new TurnMetrics();
  const visibility = store({ open: 3, waiting: 1 });
  visibilityTurnGauges({ metrics, workflows: visibility.workflows, maxAgeMs: 60_000 });
  visibility.fail(true);
  expect(await gauges(metrics)).toEqual({ open: Number.NaN, waiting: Number.NaN, errors: 1 });
  visibility.fail(false);
  expect(await gauges(metrics)).toEqual({ open: 3, waiting: 1, errors: 1 });
  expect(visibility.queries).toHaveLength(4);
});

test('two workers of one process on the same namespace and task queue report its turns once', async () => {
  const metrics = new TurnMetrics();
  for (let i = 0; i < 2; i++)
    visibilityTurnGauges({
      metrics,
      workflows: store({ open: 4, waiting: 1 }).workflows,
      namespace: 'ns',
      taskQueue: 'q',
    });
  visibilityTurnGauges({
    metrics,
    workflows: store({ open: 5, waiting: 0 }).workflows,
    namespace: 'ns',
    taskQueue: 'other',
  });
  expect(await gauges(metrics)).toEqual({ open: 9, waiting: 1, errors: 0 });
});
