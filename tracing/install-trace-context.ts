import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';

let installed = false;

/**
 * A global context manager and W3C propagator, unless the application registered its own: Temporal's
 * OpenTelemetry interceptors (client and activity) find the span they run under only through the
 * active context, and pass it on only through the propagator. Installed by the Temporal pieces
 * (`turnClientInterceptors`, `workerTracingOptions`), not by `createTurnTracing`: on Node 20 the
 * first context switch turns on promise hooks for the whole process — ~2 µs more on each in-process
 * tool call, traced or not — and the in-process executor passes its spans' parents explicitly.
 */
export function installTraceContext(): void {
  if (installed) return;
  installed = true;
  // Each returns false (and leaves the application's in place) when one is registered already.
  const manager = new AsyncLocalStorageContextManager().enable();
  if (!context.setGlobalContextManager(manager)) manager.disable();
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
}
