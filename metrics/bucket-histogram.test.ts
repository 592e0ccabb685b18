import { Histogram, Registry } from 'prom-client';
import { BucketHistogram } from './bucket-histogram';

const bounds = [0.01, 0.1, 1];
const observations: [string, number][] = [
  ['a', 0.005],
  ['a', 0.01], // on a bound: counts in it (le is "less than or equal")
  ['a', 0.5],
  ['a', 7], // above every bound: only +Inf
  ['b', 0.05],
];

test("exposes the same text as prom-client's own Histogram for the same observations", async () => {
  const ours = new Registry();
  const histogram = new BucketHistogram('x_seconds', 'How long x took.', bounds, ours);
  const theirs = new Registry();
  const reference = new Histogram({
    name: 'x_seconds',
    help: 'How long x took.',
    labelNames: ['tool'],
    buckets: bounds,
    registers: [theirs],
  });
  for (const [tool, value] of observations) {
    histogram.series({ tool }).observe(value);
    reference.observe({ tool }, value);
  }
  expect(await ours.metrics()).toBe(await theirs.metrics());
});

test('a series kept by its holder keeps counting after the registry is reset', async () => {
  const registry = new Registry();
  const histogram = new BucketHistogram('y_seconds', 'y', bounds, registry);
  const series = histogram.series({ tool: 'a' });
  series.observe(0.5);
  registry.resetMetrics();
  series.observe(0.05);
  expect(await registry.metrics()).toContain('y_seconds_count{tool="a"} 1');
  expect(await registry.metrics()).toContain('y_seconds_bucket{le="0.1",tool="a"} 1');
});
