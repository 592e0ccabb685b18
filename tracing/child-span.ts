import { performance } from 'node:perf_hooks';
import {
  type Attributes,
  type AttributeValue,
  type Exception,
  type HrTime,
  type Link,
  type SpanContext,
  SpanKind,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
} from '@opentelemetry/api';
import {
  hrTimeDuration,
  type InstrumentationScope,
  isAttributeValue,
  millisToHrTime,
  timeInputToHrTime,
} from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { Span, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-node';

const unset: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
const notEnded: HrTime = Object.freeze([0, 0]) as unknown as HrTime;
const noDuration: HrTime = Object.freeze([-1, -1]) as unknown as HrTime;
// Shared until something is added: most spans never get a link or an event.
const noLinks: Link[] = Object.freeze([]) as unknown as Link[];
const noEvents: TimedEvent[] = Object.freeze([]) as unknown as TimedEvent[];

/**
 * A recording span made without the SDK's Tracer (see ChildSpans for when and why): the SDK's
 * `Span` — the API's methods and every `ReadableSpan` field — so span processors and exporters
 * cannot tell it from one of the SDK's. Started by its constructor (the processors' `onStart`),
 * ended by `end` (their `onEnding` and `onEnd`).
 *
 * Positional constructor, unlike the house style: it runs once per tool call, on the path
 * bench/in-process.ts measures (`observability`).
 */
export class ChildSpan implements Span {
  // What every such span has the same of is on the prototype (set below), not in each span.
  declare readonly kind: SpanKind;
  declare readonly resource: Resource;
  declare readonly instrumentationScope: InstrumentationScope;
  declare links: Link[];
  declare events: TimedEvent[];
  declare droppedAttributesCount: number;
  declare droppedEventsCount: number;
  declare droppedLinksCount: number;
  readonly startTime: HrTime;
  endTime: HrTime = notEnded;
  duration: HrTime = noDuration;
  status: SpanStatus = unset;
  ended = false;
  private readonly startMs: number;

  constructor(
    private readonly processors: readonly SpanProcessor[],
    private readonly context: SpanContext,
    public name: string,
    readonly parentSpanContext: SpanContext,
    /** Owned by the span from here on: valid attribute values only. */
    readonly attributes: Attributes,
    parentContext: Parameters<SpanProcessor['onStart']>[1],
    /** Wall-clock minus monotonic milliseconds, read when the parent's first child started. */
    wallOffsetMs: number,
  ) {
    // The monotonic clock anchored to the wall clock, as SDK 1.x's AnchoredClock timed a trace's
    // spans: one clock read where the SDK 2.x makes two.
    this.startMs = performance.now();
    this.startTime = millisToHrTime(this.startMs + wallOffsetMs);
    for (const processor of processors) processor.onStart(this, parentContext);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  isRecording(): boolean {
    return !this.ended;
  }

  setAttribute(key: string, value?: AttributeValue): this {
    if (this.ended || value == null || key.length === 0) return this;
    if (isAttributeValue(value)) this.attributes[key] = value;
    else this.droppedAttributesCount += 1;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) this.setAttribute(key, value);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const timed = isTime(attributesOrTime);
    const at = timed ? attributesOrTime : time;
    const attributes: Attributes = {};
    if (!timed && attributesOrTime) {
      for (const [key, value] of Object.entries(attributesOrTime))
        if (value != null && isAttributeValue(value)) attributes[key] = value;
    }
    this.events = [
      ...this.events,
      {
        name,
        attributes,
        time: timeInputToHrTime(at ?? performance.now()),
        droppedAttributesCount: 0,
      },
    ];
    return this;
  }

  addLink(link: Link): this {
    if (!this.ended) this.links = [...this.links, link];
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    // As the SDK: UNSET changes nothing and OK is final; only an error carries a message.
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK)
      return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else {
      const type = exception.code?.toString() ?? exception.name;
      if (type) attributes['exception.type'] = type;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    this.addEvent('exception', attributes, time);
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    if (endTime === undefined) {
      // The start plus the monotonic clock's duration, in two arrays rather than the SDK's four.
      const duration = millisToHrTime(performance.now() - this.startMs);
      const [seconds, nanos] = this.startTime;
      const sum = nanos + duration[1];
      this.endTime = sum < 1e9 ? [seconds + duration[0], sum] : [seconds + duration[0] + 1, sum - 1e9];
      this.duration = duration;
    } else {
      this.endTime = timeInputToHrTime(endTime);
      this.duration = hrTimeDuration(this.startTime, this.endTime);
      // An end before the start is the caller's mistake; the SDK then makes the span empty.
      if (this.duration[0] < 0) {
        this.endTime = this.startTime;
        this.duration = [0, 0];
      }
    }
    const { processors } = this;
    for (const processor of processors) processor.onEnding?.(this);
    this.ended = true;
    for (const processor of processors) processor.onEnd(this);
  }
}

function isTime(value: Attributes | TimeInput | undefined): value is TimeInput {
  return typeof value === 'number' || value instanceof Date || Array.isArray(value);
}

/** A ChildSpan class for spans of this resource and scope. */
export function childSpanClass({
  resource,
  instrumentationScope,
}: {
  resource: Resource;
  instrumentationScope: InstrumentationScope;
}): typeof ChildSpan {
  class ScopedChildSpan extends ChildSpan {}
  Object.assign(ScopedChildSpan.prototype, {
    kind: SpanKind.INTERNAL,
    resource,
    instrumentationScope,
    links: noLinks,
    events: noEvents,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  });
  return ScopedChildSpan;
}
