import { z } from 'zod';
import type { PreparedCall } from '../schema/prepared-call';
import { defineTool } from '../tools/define-tool';
import { evaluatePolicy } from '../tools/prepare-call';
import { type HostTimers, runToolAttempt } from '../tools/run-tool-attempt';
import { ToolRegistry } from '../tools/tool-registry';
import { type ToolHealthOptions, ToolHealthRegistry } from './tool-health-registry';

/** A registry on a clock the test moves by hand. */
function registry(options: Partial<ToolHealthOptions> = {}) {
  let time = 1_000;
  const health = new ToolHealthRegistry({ ...options, now: () => time });
  return {
    health,
    advance: (ms: number) => {
      time += ms;
    },
    now: () => time,
  };
}

describe('ToolHealthRegistry counters', () => {
  it('reports a tool it has not seen as healthy with zero counters', () => {
    const { health } = registry();
    expect(health.snapshotOf('fresh')).toEqual({
      toolName: 'fresh',
      attempts: 0,
      successes: 0,
      failures: 0,
      timeouts: 0,
      consecutiveFailures: 0,
      latencyMs: { mean: 0, max: 0 },
      recentSuccessRate: 1,
      status: 'healthy',
      circuit: 'closed',
    });
  });

  it('counts attempts, successes, failures and timeouts, with mean and max latency', () => {
    const { health } = registry({ failureThreshold: 100 });
    health.record('fetch', 'success', 10);
    health.record('fetch', 'failure', 30);
    health.record('fetch', 'timeout', 200);
    health.record('fetch', 'success', 0);
    expect(health.snapshotOf('fetch')).toMatchObject({
      attempts: 4,
      successes: 2,
      failures: 1,
      timeouts: 1,
      consecutiveFailures: 0,
      latencyMs: { mean: 60, max: 200 },
    });
  });

  it('keeps each tool its own counters and lists snapshots by name', () => {
    const { health } = registry();
    health.record('write', 'failure', 1);
    health.record('read', 'success', 1);
    expect(health.snapshot().map((s) => [s.toolName, s.successes, s.failures])).toEqual([
      ['read', 1, 0],
      ['write', 0, 1],
    ]);
  });

  it('keeps a recent success rate: the mean of the attempts so far, the newest weighted most', () => {
    const { health } = registry({ ewmaAlpha: 0.5, failureThreshold: 100 });
    const rates: number[] = [];
    for (const outcome of ['success', 'failure', 'failure', 'success', 'timeout'] as const) {
      health.record('t', outcome, 1);
      rates.push(health.snapshotOf('t').recentSuccessRate);
    }
    // Weights 1/2, 1/4, 1/8, … from the newest, over the weight given out so far.
    expect(rates.map((r) => Number(r.toFixed(4)))).toEqual([1, 0.3333, 0.1429, 0.6, 0.2903]);

    const first = registry({ ewmaAlpha: 0.5 });
    first.health.record('t', 'failure', 1);
    expect(first.health.snapshotOf('t').recentSuccessRate).toBe(0);
  });

  it('a failure and then a successful retry is degraded, not unhealthy (the first attempt does not weigh as all the past)', () => {
    const { health } = registry({ failureThreshold: 100 });
    health.record('flaky', 'failure', 1);
    health.record('flaky', 'success', 1);
    expect(health.snapshotOf('flaky')).toMatchObject({
      recentSuccessRate: expect.closeTo(0.2 / 0.36, 10),
      status: 'degraded',
    });
  });

  it('after many attempts it is the exponentially weighted average', () => {
    const { health } = registry({ ewmaAlpha: 0.2, failureThreshold: 1_000 });
    for (let i = 0; i < 200; i++) health.record('t', 'success', 1);
    health.record('t', 'failure', 1);
    expect(health.snapshotOf('t').recentSuccessRate).toBeCloseTo(0.8, 10);
  });

  it('is degraded below the degraded threshold and unhealthy below the unhealthy one', () => {
    const { health } = registry({
      ewmaAlpha: 0.5,
      degradedBelow: 0.9,
      unhealthyBelow: 0.4,
      failureThreshold: 100,
    });
    const statuses: string[] = [];
    for (const outcome of ['success', 'failure', 'failure', 'success', 'success', 'success'] as const) {
      health.record('t', outcome, 1);
      statuses.push(health.snapshotOf('t').status);
    }
    // Rates: 1, 0.333, 0.143, 0.6, 0.806, 0.905.
    expect(statuses).toEqual(['healthy', 'unhealthy', 'unhealthy', 'degraded', 'degraded', 'healthy']);
  });
});

describe('ToolHealthRegistry circuit breaker', () => {
  it('opens after N consecutive failures and refuses while open, saying when the next probe is due', () => {
    const { health, advance } = registry({ failureThreshold: 3, coolDownMs: 1_000 });
    health.record('api', 'failure', 1);
    health.record('api', 'timeout', 1);
    expect(health.admit('api')).toEqual({ allowed: true, probe: false });
    health.record('api', 'failure', 1);

    expect(health.snapshotOf('api')).toMatchObject({
      circuit: 'open',
      status: 'unhealthy',
      openUntil: 2_000,
    });
    const refused = health.admit('api');
    expect(refused).toEqual({
      allowed: false,
      retryAfterMs: 1_000,
      reason: 'circuit open for api after 3 consecutive failures; next probe in 1000 ms',
    });
    advance(999);
    expect(health.admit('api')).toMatchObject({ allowed: false, retryAfterMs: 1 });
  });

  it('needs the failures to be consecutive: a success in between starts the count again', () => {
    const { health } = registry({ failureThreshold: 3 });
    for (const outcome of ['failure', 'failure', 'success', 'failure', 'failure'] as const)
      health.record('api', outcome, 1);
    expect(health.snapshotOf('api')).toMatchObject({ circuit: 'closed', consecutiveFailures: 2 });
    expect(health.admit('api')).toEqual({ allowed: true, probe: false });
  });

  it('opens the circuit of one tool only', () => {
    const { health } = registry({ failureThreshold: 1 });
    health.record('down', 'failure', 1);
    expect(health.admit('down').allowed).toBe(false);
    expect(health.admit('up')).toEqual({ allowed: true, probe: false });
  });

  it('lets exactly one probe through after the cool-down', () => {
    const { health, advance } = registry({ failureThreshold: 2, coolDownMs: 500 });
    health.record('api', 'failure', 1);
    health.record('api', 'failure', 1);
    advance(500);
    expect(health.snapshotOf('api').circuit).toBe('half-open');
    expect(health.admit('api')).toEqual({ allowed: true, probe: true });
    expect(health.admit('api')).toMatchObject({ allowed: false });
    advance(10_000);
    expect(health.admit('api')).toMatchObject({ allowed: false });
    expect(health.snapshotOf('api').circuit).toBe('half-open');
  });

  it('closes the circuit when the probe succeeds', () => {
    const { health, advance } = registry({ failureThreshold: 2, coolDownMs: 500 });
    health.record('api', 'failure', 1);
    health.record('api', 'failure', 1);
    advance(500);
    health.admit('api');
    health.record('api', 'success', 5);
    expect(health.snapshotOf('api')).toMatchObject({ circuit: 'closed', consecutiveFailures: 0 });
    expect(health.snapshotOf('api').openUntil).toBeUndefined();
    expect(health.admit('api')).toEqual({ allowed: true, probe: false });
    expect(health.admit('api')).toEqual({ allowed: true, probe: false });
  });

  it('re-opens the circuit for another cool-down when the probe fails', () => {
    const { health, advance, now } = registry({ failureThreshold: 2, coolDownMs: 500 });
    health.record('api', 'failure', 1);
    health.record('api', 'failure', 1);
    advance(600);
    expect(health.admit('api')).toEqual({ allowed: true, probe: true });
    advance(50);
    health.record('api', 'timeout', 50);
    expect(health.snapshotOf('api')).toMatchObject({ circuit: 'open', openUntil: now() + 500 });
    expect(health.admit('api')).toMatchObject({ allowed: false, retryAfterMs: 500 });
    advance(500);
    expect(health.admit('api')).toEqual({ allowed: true, probe: true });
  });
});

describe('ToolHealthRegistry with tool attempts', () => {
  const tool = defineTool({
    name: 'api',
    description: 'Calls an API',
    input: z.object({}),
    execute: () => 'fine',
  });
  const call: PreparedCall = {
    toolCallId: 'c1',
    toolName: 'api',
    input: {},
    policy: evaluatePolicy(tool, {}),
  };

  it('does not leave the circuit stuck half-open when the probe attempt is blocked by a hook before it runs', async () => {
    const { health, advance, now } = registry({ failureThreshold: 1, coolDownMs: 100 });
    const timers: HostTimers = { now, setTimeout: () => undefined, clearTimeout: () => {} };
    const tools = new ToolRegistry([tool]);
    health.record('api', 'failure', 1);
    advance(100);

    const blocked = await runToolAttempt({
      turnId: 't',
      call,
      attempt: 1,
      registry: tools,
      health,
      timers,
      hooks: [{ name: 'policy', preTool: () => ({ action: 'block', reason: 'not now' }) }],
    });
    expect(blocked.result).toMatchObject({ status: 'error', errorType: 'blocked' });

    // The probe never ran: a later attempt after the cool-down must be let through to probe.
    advance(10_000);
    const later = await runToolAttempt({ turnId: 't', call, attempt: 1, registry: tools, health, timers });
    expect(later.result).toMatchObject({ status: 'ok', content: 'fine' });
    expect(health.snapshotOf('api').circuit).toBe('closed');
  });
});
