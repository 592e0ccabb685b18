/**
 * The workflow interceptor module every turn workflow bundle carries (see
 * worker/workflow-interceptor-modules.ts): Temporal's OpenTelemetry workflow interceptors, which make
 * the workflow's spans deterministically and pass the trace context on to activities and
 * continue-as-new. Always bundled, tracing or not, so every worker runs the same workflow code.
 */
export { interceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';
