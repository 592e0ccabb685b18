import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** A workflow interceptor module that intercepts nothing; its marker shows whether a bundle carries it. */
export const markerWorkflowInterceptorsMarker = 'marker-workflow-interceptors-7f3a';

export const interceptors: WorkflowInterceptorsFactory = () => {
  (globalThis as { interceptorMarker?: string }).interceptorMarker = markerWorkflowInterceptorsMarker;
  return {};
};
