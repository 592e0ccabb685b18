export { TranscriptCache, type TranscriptCacheOptions } from '../activities/transcript-cache';
export { type InstallSdkMetricsOptions, installSdkMetrics } from '../metrics/install-sdk-metrics';
export { turnMetricsSinks } from '../metrics/turn-metrics-sinks';
export * from './build-turn-workflow-bundle';
export type { TurnWorkflowBundleSource } from './choose-turn-workflow-bundle';
export * from './create-turn-worker';
export { FleetHealthReporter, type FleetHealthReportingOptions } from './fleet-health-reporter';
export { type ModelRateLimit, modelRateLimitSchema } from './model-rate-limits';
export { type TurnWorkflowBundle, turnWorkflowBundle } from './turn-workflow-bundle';
export {
  type TurnWorkflowBundleManifest,
  turnWorkflowBundleManifestPath,
  turnWorkflowBundleManifestSchema,
} from './turn-workflow-bundle-manifest';
export { turnWorkflowSinks } from './turn-workflow-sinks';
export { turnWorkflowInterceptorModules } from './workflow-interceptor-modules';
