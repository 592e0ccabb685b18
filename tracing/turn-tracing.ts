import type { Tracer } from '@opentelemetry/api';
import {
  defaultResource,
  detectResources,
  envDetector,
  type Resource,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import type { Sampler, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { durableTurnsVersion } from '../core/package-version';
import { captureMessageContentFromEnv } from './capture-message-content';
import { ChildSpans } from './child-spans';
import { PooledRandomIdGenerator } from './pooled-random-id-generator';

/**
 * Where a turn's spans go: the tracer for the worker's and client's own spans, and the processors
 * that spans made inside the workflow sandbox (handed out through a sink) join. Made by
 * `createTurnTracing` or `turnTracingFromEnv`.
 */
export interface TurnTracing {
  readonly tracer: Tracer;
  /** The processors every span ends in (workflow spans are fed to them directly). */
  readonly spanProcessors: readonly SpanProcessor[];
  readonly resource: Resource;
  /** Record prompts, completions, tool arguments and outputs on spans (off unless asked: they may be private). */
  readonly captureMessageContent: boolean;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface CreateTurnTracingOptions {
  spanProcessors: readonly SpanProcessor[];
  /** Merged over the SDK's default resource and `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES`. */
  resource?: Resource;
  /** Default: `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG`, else parent-based always-on. */
  sampler?: Sampler;
  /** Default: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. */
  captureMessageContent?: boolean;
}

/**
 * Tracing for turns with these span processors. Its provider is its own, not the global one (a
 * library must not take over the application's). The Temporal pieces that use it install a
 * context manager and propagator (installTraceContext); the in-process executor needs neither.
 */
export function createTurnTracing({
  spanProcessors,
  resource,
  sampler,
  captureMessageContent = captureMessageContentFromEnv({ env: process.env }),
}: CreateTurnTracingOptions): TurnTracing {
  const merged = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'durable-turns' }))
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resource ?? null);
  const idGenerator = new PooledRandomIdGenerator();
  const provider = new NodeTracerProvider({
    resource: merged,
    spanProcessors: [...spanProcessors],
    idGenerator,
    ...(sampler ? { sampler } : {}),
  });
  const version = durableTurnsVersion;
  const tracing: TurnTracing = {
    tracer: provider.getTracer('durable-turns', version),
    spanProcessors,
    resource: merged,
    captureMessageContent,
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
  if (ChildSpans.applicable({ sampler }))
    childSpans.set(
      tracing,
      new ChildSpans({
        processors: [...spanProcessors],
        resource: merged,
        // As the Tracer names its spans' scope.
        instrumentationScope: { name: 'durable-turns', version, schemaUrl: undefined },
        ids: idGenerator,
      }),
    );
  return tracing;
}

const childSpans = new WeakMap<TurnTracing, ChildSpans>();

/**
 * How spans that are children of a sampled span can be made without the Tracer (ChildSpans), if
 * this tracing allows it; a TurnTracing made elsewhere has only its tracer.
 */
export function childSpansOf({ tracing }: { tracing: TurnTracing }): ChildSpans | undefined {
  return childSpans.get(tracing);
}
