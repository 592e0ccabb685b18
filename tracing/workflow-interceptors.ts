/**
 * The workflow interceptor module every turn workflow bundle carries (see
 * worker/workflow-interceptor-modules.ts): Temporal's OpenTelemetry workflow interceptors, which make
 * the workflow's spans deterministically and pass the trace context on to activities and
 * continue-as-new. Always bundled, tracing or not, so every worker runs the same workflow code.
 *
 * Behind a patch: they wrap scheduling an activity in promises of their own, which moves the order
 * of a workflow task's commands, so a turn begun without them would fail replay with them. A run
 * decides once, at its first intercepted call that may record a marker, and keeps to it: runs begun
 * before this code go on untraced, new runs (and old turns' next run after continue-as-new) trace.
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import {
  patched,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

export const tracingPatchId = 'durable-turns-opentelemetry-interceptors';

export const interceptors = (): WorkflowInterceptors => {
  // Per run (this factory runs once per workflow run): the decision must not leak between runs.
  let decided: boolean | undefined;
  /** May record the patch marker: only where commands may be issued. */
  const on = () => {
    decided ??= patched(tracingPatchId);
    return decided;
  };
  /** Queries and update validators are read-only: they follow the decision, never make it. */
  const onIfDecided = () => decided === true;
  const inbound = new OpenTelemetryInboundInterceptor();
  const outbound = new OpenTelemetryOutboundInterceptor();
  const gatedInbound: WorkflowInboundCallsInterceptor = {
    execute: (input, next) => (on() ? inbound.execute(input, next) : next(input)),
    handleSignal: (input, next) => (on() ? inbound.handleSignal(input, next) : next(input)),
    handleUpdate: (input, next) => (on() ? inbound.handleUpdate(input, next) : next(input)),
    validateUpdate: (input, next) => (onIfDecided() ? inbound.validateUpdate(input, next) : next(input)),
    handleQuery: (input, next) => (onIfDecided() ? inbound.handleQuery(input, next) : next(input)),
  };
  const gatedOutbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) => (on() ? outbound.scheduleActivity(input, next) : next(input)),
    scheduleLocalActivity: (input, next) =>
      on() ? outbound.scheduleLocalActivity(input, next) : next(input),
    startNexusOperation: (input, next) => (on() ? outbound.startNexusOperation(input, next) : next(input)),
    startChildWorkflowExecution: (input, next) =>
      on() ? outbound.startChildWorkflowExecution(input, next) : next(input),
    continueAsNew: (input, next) => (on() ? outbound.continueAsNew(input, next) : next(input)),
    signalWorkflow: (input, next) => (on() ? outbound.signalWorkflow(input, next) : next(input)),
    getLogAttributes: (input, next) => (onIfDecided() ? outbound.getLogAttributes(input, next) : next(input)),
  };
  return {
    inbound: [gatedInbound],
    outbound: [gatedOutbound],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
