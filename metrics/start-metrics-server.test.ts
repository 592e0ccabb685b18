import { createServer } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { parsePrometheusText, sampleValue } from '../test/support/prometheus-text';
import { startMetricsServer } from './start-metrics-server';

function registryWithOneCounter(): { registry: Registry; counter: Counter } {
  const registry = new Registry();
  const counter = new Counter({ name: 'things_total', help: 'Things.', registers: [registry] });
  return { registry, counter };
}

test('serves the registry at /metrics in the Prometheus text format, as it is at each scrape', async () => {
  const { registry, counter } = registryWithOneCounter();
  const server = await startMetricsServer({ registry, port: 0 });
  try {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/metrics`);
    const first = await fetch(server.url);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe(registry.contentType);
    expect(sampleValue(parsePrometheusText(await first.text()), 'things_total')).toBe(0);
    counter.inc(3);
    const second = await fetch(server.url);
    expect(sampleValue(parsePrometheusText(await second.text()), 'things_total')).toBe(3);
  } finally {
    await server.close();
  }
});

test('answers anything but GET /metrics with a 404 that says where the metrics are', async () => {
  const { registry } = registryWithOneCounter();
  const server = await startMetricsServer({ registry, port: 0 });
  try {
    const response = await fetch(server.url.replace('/metrics', '/'));
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('GET /metrics');
    expect((await fetch(server.url, { method: 'POST' })).status).toBe(404);
  } finally {
    await server.close();
  }
});

test('a metric whose collection fails turns the scrape into a 500 naming the failure, and the server keeps serving', async () => {
  const registry = new Registry();
  let fail = true;
  new Counter({
    name: 'flaky_total',
    help: 'Fails to collect while `fail` is set.',
    registers: [registry],
    collect() {
      if (fail) throw new Error('backend away');
    },
  });
  const server = await startMetricsServer({ registry, port: 0 });
  try {
    const failed = await fetch(server.url);
    expect(failed.status).toBe(500);
    expect(await failed.text()).toContain('backend away');
    fail = false;
    expect((await fetch(server.url)).status).toBe(200);
  } finally {
    await server.close();
  }
});

test('a port already taken fails the start with a message naming the port and the setting', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const address = holder.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    await expect(startMetricsServer({ registry: new Registry(), port })).rejects.toThrow(
      `cannot serve metrics on 127.0.0.1:${port} (EADDRINUSE); pick another port (DURABLE_TURNS_METRICS_PORT)`,
    );
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});

test('closing does not wait for a scraper that keeps its connection open', async () => {
  const server = await startMetricsServer({ registry: new Registry(), port: 0 });
  // fetch keeps connections alive by default: the socket stays open after the response.
  await (await fetch(server.url)).text();
  await server.close();
  await expect(fetch(server.url)).rejects.toThrow();
});
