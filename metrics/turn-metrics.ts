import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ToolHealthRegistry } from '../core/health/tool-health-registry';
import type { TurnModel } from '../core/model/turn-model';
import type { TurnStatus } from '../core/schema/turn-status';
import type { Usage } from '../core/schema/usage';
import { BucketHistogram } from './bucket-histogram';
import { meteredModel } from './metered-model';
import { type MetricsObserver, metricsObserver } from './metrics-observer';
import { ToolAttemptSeries } from './tool-attempt-series';
import type { ModelRequestOutcome, TurnGaugeSource, TurnMetricsRecorder } from './turn-metrics-recorder';

export type { ModelRequestOutcome, TurnGaugeSource } from './turn-metrics-recorder';

export interface TurnMetricsOptions {
  /** Where the metrics are registered (default: a registry of their own, not prom-client's global one). */
  registry?: Registry;
  /** Histogram bucket bounds, in seconds. */
  buckets?: { toolAttempt?: number[]; modelRequest?: number[]; turn?: number[] };
  /** On a turn worker: scrapes this close together share one Visibility count (default 10 s). */
  visibilityMaxAgeMs?: number;
}

const circuitStates = ['closed', 'open', 'half-open'] as const;

// From a cache hit to a slow shell command; model requests and turns last far longer.
const defaultToolBuckets = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];
const defaultModelBuckets = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 300];
const defaultTurnBuckets = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600];

/**
 * The Prometheus metrics of turns, tools and models, in one prom-client registry. Labels are tool
 * names, model names, outcomes and statuses only — never turn or call ids — so the number of
 * series stays bounded by what the worker is configured with.
 *
 * Fed by `observer` (tool attempts; turns, in process), `model(…)` (model requests), the turn
 * workflow's metrics sink (turns, on Temporal) and the gauge sources added with `addTurnGauges`.
 */
export class TurnMetrics implements TurnMetricsRecorder {
  readonly registry: Registry;
  /** Tool attempts and (in process) turn-level figures; pass it in `observers`. */
  readonly observer: MetricsObserver;
  private readonly toolAttemptSeconds: BucketHistogram;
  /** Per tool: attempts by outcome and the duration series, counted on the hot path without prom-client. */
  private readonly toolSeries = new Map<string, ToolAttemptSeries>();
  /** The tool of the last attempt: a turn's attempts come in runs of one tool, mostly. */
  private lastTool: string | undefined;
  private lastToolSeries: ToolAttemptSeries | undefined;
  private readonly modelRequests: Counter<'model' | 'outcome'>;
  private readonly modelRequestSeconds: Histogram<'model' | 'outcome'>;
  private readonly modelTokens: Counter<'model' | 'type'>;
  private readonly turnsStarted: Counter;
  private readonly turnsEnded: Counter<'status'>;
  private readonly turnSeconds: Histogram<'status'>;
  private readonly healthRegistries = new Set<ToolHealthRegistry>();
  private readonly gaugeSources = new Map<unknown, TurnGaugeSource>();

  /** See `TurnMetricsOptions.visibilityMaxAgeMs`. */
  readonly visibilityMaxAgeMs: number | undefined;

  constructor({ registry = new Registry(), buckets = {}, visibilityMaxAgeMs }: TurnMetricsOptions = {}) {
    this.registry = registry;
    this.visibilityMaxAgeMs = visibilityMaxAgeMs;
    const registers = [registry];
    const toolSeries = this.toolSeries;
    new Counter({
      name: 'durable_turns_tool_attempts_total',
      help: 'Tool call attempts, by tool and by what the attempt came to (ok, error, interrupted, needs-approval).',
      labelNames: ['tool', 'outcome'],
      registers,
      collect() {
        this.reset();
        for (const [tool, series] of toolSeries)
          for (const [outcome, count] of series.counts()) this.inc({ tool, outcome }, count);
      },
    });
    this.toolAttemptSeconds = new BucketHistogram(
      'durable_turns_tool_attempt_duration_seconds',
      'How long tool call attempts took, by tool.',
      buckets.toolAttempt ?? defaultToolBuckets,
      registry,
    );
    const healthRegistries = this.healthRegistries;
    new Gauge({
      name: 'durable_turns_tool_circuit_state',
      help: "Each tool's circuit breaker: 1 for the state it is in (closed, open, half-open), 0 for the others.",
      labelNames: ['tool', 'state'],
      registers,
      collect() {
        this.reset();
        for (const health of healthRegistries)
          for (const snapshot of health.snapshot())
            for (const state of circuitStates)
              this.set({ tool: snapshot.toolName, state }, snapshot.circuit === state ? 1 : 0);
      },
    });
    this.modelRequests = new Counter({
      name: 'durable_turns_model_requests_total',
      help: 'Model requests (each attempt counts), by model and outcome (ok, error, cancelled).',
      labelNames: ['model', 'outcome'],
      registers,
    });
    this.modelRequestSeconds = new Histogram({
      name: 'durable_turns_model_request_duration_seconds',
      help: 'How long model requests took from the request to the end of its stream, by model and outcome.',
      labelNames: ['model', 'outcome'],
      buckets: buckets.modelRequest ?? defaultModelBuckets,
      registers,
    });
    this.modelTokens = new Counter({
      name: 'durable_turns_model_tokens_total',
      help: 'Tokens the models reported using, by model and type (input, output).',
      labelNames: ['model', 'type'],
      registers,
    });
    this.turnsStarted = new Counter({
      name: 'durable_turns_turns_started_total',
      help: 'Turns started.',
      registers,
    });
    this.turnsEnded = new Counter({
      name: 'durable_turns_turns_ended_total',
      help: 'Turns ended, by status (completed, cancelled, budget_exhausted, loop_detected, failed).',
      labelNames: ['status'],
      registers,
    });
    this.turnSeconds = new Histogram({
      name: 'durable_turns_turn_duration_seconds',
      help: 'How long turns took from start to end, by status.',
      labelNames: ['status'],
      buckets: buckets.turn ?? defaultTurnBuckets,
      registers,
    });
    const sources = this.gaugeSources;
    const sum = async (read: (source: TurnGaugeSource) => number | Promise<number>) =>
      (await Promise.all([...sources.values()].map(read))).reduce((a, b) => a + b, 0);
    new Gauge({
      name: 'durable_turns_open_turns',
      help: 'Turns started and not yet ended.',
      registers,
      async collect() {
        this.set(await sum((source) => source.openTurns()));
      },
    });
    new Gauge({
      name: 'durable_turns_turns_waiting_for_approval',
      help: "Open turns with a call waiting for a person's decision.",
      registers,
      async collect() {
        this.set(await sum((source) => source.turnsWaitingForApproval()));
      },
    });
    this.observer = metricsObserver({ metrics: this });
    this.addTurnGauges({ source: this.observer });
  }

  /** Reports the circuits of this health registry in `durable_turns_tool_circuit_state`. */
  watchHealth({ health }: { health: ToolHealthRegistry }): void {
    this.healthRegistries.add(health);
  }

  /**
   * Adds a source to the open-turn gauges (the observer is one already; see `visibilityTurnGauges`).
   * Sources added under the same `key` count once: two workers of one process on one task queue
   * must not report its turns twice. Returns whether the source was added.
   */
  addTurnGauges({ source, key = source }: { source: TurnGaugeSource; key?: unknown }): boolean {
    if (this.gaugeSources.has(key)) return false;
    this.gaugeSources.set(key, source);
    return true;
  }

  /** The same model, with every request counted and timed (its tokens too) under its name. */
  model(model: TurnModel): TurnModel {
    return meteredModel({ model, metrics: this });
  }

  /** Runs once per tool attempt (thousands a turn in process): mostly a comparison and a few adds. */
  recordToolAttempt({ tool, outcome, durationMs }: { tool: string; outcome: string; durationMs: number }) {
    let series = tool === this.lastTool ? this.lastToolSeries : undefined;
    if (!series) {
      series = this.toolSeries.get(tool);
      if (!series) {
        series = new ToolAttemptSeries(this.toolAttemptSeconds.series({ tool }));
        this.toolSeries.set(tool, series);
      }
      this.lastTool = tool;
      this.lastToolSeries = series;
    }
    series.record({ outcome, durationMs });
  }

  recordModelRequest({
    model,
    outcome,
    durationMs,
    usage,
  }: {
    model: string;
    outcome: ModelRequestOutcome;
    durationMs: number;
    usage?: Usage;
  }) {
    this.modelRequests.inc({ model, outcome });
    this.modelRequestSeconds.observe({ model, outcome }, durationMs / 1000);
    if (!usage) return;
    this.modelTokens.inc({ model, type: 'input' }, usage.inputTokens);
    this.modelTokens.inc({ model, type: 'output' }, usage.outputTokens);
  }

  recordTurnStarted(): void {
    this.turnsStarted.inc();
  }

  recordTurnEnded({ status, durationMs }: { status: TurnStatus; durationMs?: number }): void {
    this.turnsEnded.inc({ status });
    if (durationMs !== undefined) this.turnSeconds.observe({ status }, Math.max(0, durationMs) / 1000);
  }
}
