import type { LanguageModelV4FunctionTool } from '@ai-sdk/provider';
import {
  type AssistantMessage,
  describeFile,
  type FilePart,
  type Message,
  type ProviderMetadata,
  renderToolOutput,
  type ToolResultPart,
  type ToolSpec,
} from '../core';

/**
 * The prompt we send, in the part of the provider-level prompt format that LanguageModel specs v3
 * (AI SDK 6 providers) and v4 (AI SDK 7) share — text, reasoning, tool calls, text tool results —
 * plus file parts in our own shape, which the two specs encode differently (`specPrompt` maps them).
 */
export type PortablePrompt = PortableMessage[];

export type PortableMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: (PortableTextPart | PortableFilePart)[] }
  | { role: 'assistant'; content: PortableAssistantPart[] }
  | { role: 'tool'; content: PortableToolResultPart[] };

export type PortableTextPart = { type: 'text'; text: string; providerOptions?: ProviderMetadata };
/** A file as the provider gets it: its bytes (base64) or its URL. */
export type PortableFilePart = {
  type: 'file';
  mediaType: string;
  filename?: string;
  data: { base64: string } | { url: string };
};
type PortableAssistantPart =
  | PortableTextPart
  | { type: 'reasoning'; text: string; providerOptions?: ProviderMetadata }
  | {
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      input: unknown;
      providerOptions?: ProviderMetadata;
    };
type PortableToolResultPart = {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output:
    | { type: 'text'; value: string }
    | { type: 'error-text'; value: string }
    /** An output with files: its text, then the files. */
    | { type: 'content'; value: (PortableTextPart | PortableFilePart)[] };
};

/** A function tool as both specs describe it (v3 and v4 function tools have the same shape). */
export type PortableFunctionTool = {
  type: 'function';
  name: string;
  description?: string;
  inputSchema: LanguageModelV4FunctionTool['inputSchema'];
};

/**
 * Our transcript as the AI SDK's provider-level prompt. Tool results go back as text (errors and
 * interruptions as error text, which Anthropic marks `is_error`), rendered the way the model reads
 * them everywhere. Empty text is dropped (unless the provider marked the part) and an assistant message left with
 * nothing is skipped: providers reject empty content, and a broken stream can leave a partial
 * message with none. Provider metadata goes back as each part's provider options.
 *
 * A tool call whose arguments were not JSON is recorded with the raw text as its input. OpenAI's
 * wire carries arguments as text anyway; Anthropic's requires `tool_use.input` to be an object and
 * rejects the whole request otherwise (this happens for real when `max_tokens` cuts a call short),
 * so with `objectToolInputs` such input goes as `{ "invalid_arguments": "<raw text>" }`.
 */
export function toLanguageModelPrompt({
  messages,
  objectToolInputs = false,
}: {
  messages: readonly Message[];
  /** Wrap tool-call input that is not a JSON object (set for providers that require objects). */
  objectToolInputs?: boolean;
}): PortablePrompt {
  const prompt: PortablePrompt = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: message.content });
        break;
      case 'user':
        prompt.push({
          role: 'user',
          content:
            typeof message.content === 'string'
              ? [{ type: 'text', text: message.content }]
              : message.content.map((part) =>
                  part.type === 'text' ? { type: 'text', text: part.text } : portableFile(part),
                ),
        });
        break;
      case 'assistant': {
        const content = assistantContent(message, objectToolInputs);
        if (content.length > 0) prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool':
        prompt.push({ role: 'tool', content: message.content.map(toolResult) });
        break;
      default: {
        const unexpected: never = message;
        throw new Error(`unknown message role in ${JSON.stringify(unexpected)}`);
      }
    }
  }
  return prompt;
}

/** Our tool specs as AI SDK function tools. */
export function toLanguageModelTools(tools: readonly ToolSpec[]): PortableFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as PortableFunctionTool['inputSchema'],
  }));
}

function assistantContent(message: AssistantMessage, objectToolInputs: boolean): PortableAssistantPart[] {
  const content: PortableAssistantPart[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        // A part with only metadata is kept: a redacted thinking block, a signed empty thinking block.
        if (part.text !== '' || part.providerMetadata)
          content.push({ type: part.type, text: part.text, ...providerOptionsOf(part) });
        break;
      case 'tool-call':
        content.push({
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: toolCallInput(part.input, objectToolInputs),
          ...providerOptionsOf(part),
        });
        break;
    }
  }
  return content;
}

/**
 * What the provider attached to a part goes back as the part's provider options, unchanged: that is
 * how the AI SDK's providers take back Anthropic thinking signatures and redacted thinking, OpenAI
 * reasoning items (id, encrypted content) and Gemini thought signatures.
 */
function providerOptionsOf(part: { providerMetadata?: ProviderMetadata | undefined }): {
  providerOptions?: ProviderMetadata;
} {
  return part.providerMetadata ? { providerOptions: part.providerMetadata } : {};
}

/** Parsed JSON arguments as they are; a string is parsed when it is JSON text, else kept as the raw text. */
function toolCallInput(input: unknown, objectOnly: boolean): unknown {
  let value = input ?? {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      // Not JSON: the raw text the model sent.
    }
  }
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!objectOnly || isObject) return value;
  return { invalid_arguments: typeof input === 'string' ? input : JSON.stringify(value) };
}

function toolResult(part: ToolResultPart): PortableToolResultPart {
  const value = renderToolOutput(part.output);
  const files = part.output.files ?? [];
  return {
    type: 'tool-result',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    output:
      files.length > 0
        ? { type: 'content', value: [{ type: 'text', text: value }, ...files.map(portableFile)] }
        : part.output.status === 'ok'
          ? { type: 'text', value }
          : { type: 'error-text', value },
  };
}

/** A file part whose bytes were fetched from the blob store beforehand (see `withFileBytes`). */
function portableFile(part: FilePart): PortableFilePart {
  if ('blob' in part.data)
    throw new Error(
      `file part ${describeFile(part)} still refers to the blob store: its bytes must be read before the prompt is built`,
    );
  return {
    type: 'file',
    mediaType: part.mediaType,
    ...(part.filename !== undefined ? { filename: part.filename } : {}),
    data: part.data,
  };
}
