// Prometheus metrics of turns, tools and models (prom-client), for either executor. What only a
// Temporal worker needs (the SDK's own metrics, the worker's wiring) is in durable-turns/worker.
export { meteredModel } from './metered-model';
export * from './metrics-config-from-env';
export { type MetricsObserver, metricsObserver, unknownToolLabel } from './metrics-observer';
export * from './start-metrics-server';
export * from './turn-metrics';
export * from './visibility-turn-gauges';
