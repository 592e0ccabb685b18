import type { ProviderMetadata } from '../core';

/**
 * Watches streamed tool-call arguments and says when a call's arguments are complete, before the
 * provider says so. The AI SDK's OpenAI chat providers only emit `tool-call` parts when the whole
 * stream ends (their tracker finishes calls in `flush`), which would delay every launch to the end
 * of the response and lose every call when the connection drops. A JSON object is self-delimiting:
 * once the text holds one balanced `{…}` that parses, no valid continuation can change it, so the
 * call can be launched then. Anything else (text-encoded input, arrays, malformed JSON) waits for
 * the provider's own `tool-call` part.
 */
export class ToolInputTracker {
  private readonly open = new Map<string, OpenInput>();
  private readonly emitted = new Set<string>();

  /** A `tool-input-start` part. Provider-executed and text-encoded inputs are not tracked. */
  start({
    id,
    toolName,
    textEncoded,
    providerMetadata,
  }: {
    id: string;
    toolName: string;
    textEncoded: boolean;
    /** What the provider attached to the call's start: the early call carries it. */
    providerMetadata?: ProviderMetadata;
  }): void {
    if (textEncoded || this.emitted.has(id)) return;
    this.open.set(id, {
      toolName,
      text: '',
      scan: { depth: 0, inString: false, escaped: false, started: false },
      ...(providerMetadata ? { providerMetadata } : {}),
    });
  }

  /** A `tool-input-delta` part; returns the call when its arguments just became a complete JSON object. */
  delta(
    id: string,
    delta: string,
  ):
    | { toolCallId: string; toolName: string; input: string; providerMetadata?: ProviderMetadata }
    | undefined {
    const input = this.open.get(id);
    if (!input) return undefined;
    input.text += delta;
    if (!advance(input.scan, delta)) return undefined;
    this.open.delete(id);
    if (!isJsonObject(input.text)) return undefined;
    this.emitted.add(id);
    return {
      toolCallId: id,
      toolName: input.toolName,
      input: input.text,
      ...(input.providerMetadata ? { providerMetadata: input.providerMetadata } : {}),
    };
  }

  /** True when the provider's `tool-call` part for this id repeats a call already handed on. */
  alreadyEmitted(toolCallId: string): boolean {
    this.open.delete(toolCallId);
    return this.emitted.has(toolCallId);
  }
}

interface OpenInput {
  toolName: string;
  text: string;
  providerMetadata?: ProviderMetadata;
  scan: ScanState;
}

interface ScanState {
  depth: number;
  inString: boolean;
  escaped: boolean;
  started: boolean;
}

/**
 * Feeds more text to the brace scanner (linear in the argument length overall). Returns true when
 * the top-level object just closed; gives up (stays false) when the text does not start with `{`.
 */
function advance(state: ScanState, chunk: string): boolean {
  for (const char of chunk) {
    if (!state.started) {
      if (/\s/.test(char)) continue;
      if (char !== '{') {
        state.depth = -1;
        return false;
      }
      state.started = true;
    }
    if (state.depth < 0) return false;
    if (state.inString) {
      if (state.escaped) state.escaped = false;
      else if (char === '\\') state.escaped = true;
      else if (char === '"') state.inString = false;
      continue;
    }
    if (char === '"') state.inString = true;
    else if (char === '{' || char === '[') state.depth += 1;
    else if (char === '}' || char === ']') {
      state.depth -= 1;
      if (state.depth === 0) return true;
    }
  }
  return false;
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
