import { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { ToolHealthRegistry } from '../core/health/tool-health-registry';
import type { TurnModel } from '../core/model/turn-model';
import type { TurnMetrics } from './turn-metrics';
import { visibilityTurnGauges } from './visibility-turn-gauges';

/**
 * Points a turn worker's figures at `metrics`: its circuits, its models (each replaced in `models`
 * by its metered self) and its task queue's open turns by Visibility count. Tool attempts come
 * through `metrics.observer`, turns through the workflow's metrics sink (`turnMetricsSinks`).
 */
export function meterTurnWorker({
  metrics,
  connection,
  namespace,
  taskQueue,
  models,
  health,
}: {
  metrics: TurnMetrics;
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  models: Map<string, TurnModel>;
  health: ToolHealthRegistry;
}): void {
  metrics.watchHealth({ health });
  for (const [name, model] of models) models.set(name, metrics.model(model));
  const workflows = new Client({ connection, namespace }).workflow;
  const { visibilityMaxAgeMs: maxAgeMs } = metrics;
  visibilityTurnGauges({
    metrics,
    workflows,
    namespace,
    taskQueue,
    ...(maxAgeMs !== undefined ? { maxAgeMs } : {}),
  });
}
