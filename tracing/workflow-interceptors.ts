/**
 * The workflow interceptor module every turn workflow bundle carries (see
 * worker/workflow-interceptor-modules.ts): Temporal's OpenTelemetry workflow interceptors, which make
 * the workflow's spans deterministically and pass the trace context on to activities and
 * continue-as-new. Always bundled, tracing or not, so every worker runs the same workflow code.
 *
 * Only for turns started with a trace context (a client with `turnClientInterceptors`): a turn
 * started without one costs nothing — no spans, no trace header on each activity in history.
 * Behind a patch as well: the interceptors wrap scheduling an activity in promises of their own,
 * which moves the order of a workflow task's commands, so a turn begun without them would fail
 * replay with them. A run decides once, at its start, from what is in its history (its start's
 * headers, the patch marker), so replay decides the same.
 */

import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
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
  // Until the run starts (an update delivered with its start), nothing is traced.
  let on = false;
  const inbound = new OpenTelemetryInboundInterceptor();
  const outbound = new OpenTelemetryOutboundInterceptor();
  const gatedInbound: WorkflowInboundCallsInterceptor = {
    execute: (input, next) => {
      on = input.headers[TRACE_HEADER] !== undefined && patched(tracingPatchId);
      return on ? inbound.execute(input, next) : next(input);
    },
    handleSignal: (input, next) => (on ? inbound.handleSignal(input, next) : next(input)),
    handleUpdate: (input, next) => (on ? inbound.handleUpdate(input, next) : next(input)),
    validateUpdate: (input, next) => (on ? inbound.validateUpdate(input, next) : next(input)),
    handleQuery: (input, next) => (on ? inbound.handleQuery(input, next) : next(input)),
  };
  const gatedOutbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) => (on ? outbound.scheduleActivity(input, next) : next(input)),
    scheduleLocalActivity: (input, next) => (on ? outbound.scheduleLocalActivity(input, next) : next(input)),
    startNexusOperation: (input, next) => (on ? outbound.startNexusOperation(input, next) : next(input)),
    startChildWorkflowExecution: (input, next) =>
      on ? outbound.startChildWorkflowExecution(input, next) : next(input),
    continueAsNew: (input, next) => (on ? outbound.continueAsNew(input, next) : next(input)),
    signalWorkflow: (input, next) => (on ? outbound.signalWorkflow(input, next) : next(input)),
    getLogAttributes: (input, next) => (on ? outbound.getLogAttributes(input, next) : next(input)),
  };
  return {
    inbound: [gatedInbound],
    outbound: [gatedOutbound],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
