import { type AnyTool, defineTool } from 'durable-turns';
import { z } from 'zod';
import type { StreamTimeline } from './stream-timeline';

/** One run of a tool: the call id it was given and the arguments it got. */
export interface ToolInvocation {
  toolName: string;
  toolCallId: string;
  args: unknown;
}

/** What each replayed call gets back, so the follow-up request can be checked for it. */
export function replayOutput(toolCallId: string): string {
  return `replayed output of ${toolCallId}`;
}

/**
 * A tool for each name the recordings call. Each takes any JSON object (the check is that it gets
 * exactly the recorded one), marks on the timeline that its call started, and answers at once. They
 * are concurrency-safe, so a response's parallel calls may all start while it streams.
 */
export function recordingTools({
  names,
  timeline,
  invocations,
}: {
  names: readonly string[];
  timeline: StreamTimeline;
  invocations: ToolInvocation[];
}): AnyTool[] {
  return [...new Set(names)].map((name) =>
    defineTool({
      name,
      description: `The recorded conversation's ${name}`,
      input: z.record(z.string(), z.unknown()),
      concurrencySafe: true,
      execute: (args, { toolCallId }) => {
        timeline.callStarted(toolCallId);
        invocations.push({ toolName: name, toolCallId, args });
        return replayOutput(toolCallId);
      },
    }),
  );
}
