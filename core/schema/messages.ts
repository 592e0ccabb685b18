import { z } from 'zod';
import { describeFile, filePartSchema } from './media';
import { providerMetadataSchema } from './provider-metadata';
import { toolOutputSchema } from './tool-output';

/**
 * The provider-neutral transcript. It mirrors the AI SDK's model messages closely so adapters stay
 * thin, and it is what every executor records: the same script gives the same messages everywhere.
 */
export const textPartSchema = z.object({
  type: z.literal('text'),
  text: z.string(),
  /** What the provider attached to this text (an OpenAI message item's id): sent back with it. */
  providerMetadata: providerMetadataSchema.optional(),
});
/**
 * The model's reasoning. Its provider metadata is what lets the provider take it back: Anthropic's
 * thinking signature (or a redacted block's data, with empty text), OpenAI's reasoning item id and
 * encrypted content. A part with empty text and metadata is kept: it is the whole of a redacted block.
 */
export const reasoningPartSchema = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  providerMetadata: providerMetadataSchema.optional(),
});
export const toolCallPartSchema = z.object({
  type: z.literal('tool-call'),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  /** Parsed JSON arguments; the raw text when the model sent arguments that are not JSON. */
  input: z.unknown(),
  /** What the provider attached to the call (Gemini's thought signature, OpenAI's item id). */
  providerMetadata: providerMetadataSchema.optional(),
});
export const toolResultPartSchema = z.object({
  type: z.literal('tool-result'),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  output: toolOutputSchema,
});

export const systemMessageSchema = z.object({ role: z.literal('system'), content: z.string() });
/**
 * A user message: text, or parts — text (a delivery of background outputs has one per call) and
 * files (images, PDFs: see `filePartSchema`).
 */
export const userMessageSchema = z.object({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPartSchema, filePartSchema]))]),
});
export const assistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.array(z.discriminatedUnion('type', [textPartSchema, reasoningPartSchema, toolCallPartSchema])),
  /** Set when the response stream broke: the message holds what arrived before it did. */
  partial: z.object({ reason: z.string() }).optional(),
});
export const toolMessageSchema = z.object({
  role: z.literal('tool'),
  content: z.array(toolResultPartSchema),
});

export const messageSchema = z.discriminatedUnion('role', [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);

export type TextPart = z.infer<typeof textPartSchema>;
export type ReasoningPart = z.infer<typeof reasoningPartSchema>;
export type ToolCallPart = z.infer<typeof toolCallPartSchema>;
export type ToolResultPart = z.infer<typeof toolResultPartSchema>;
export type SystemMessage = z.infer<typeof systemMessageSchema>;
export type UserMessage = z.infer<typeof userMessageSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ToolMessage = z.infer<typeof toolMessageSchema>;
export type Message = z.infer<typeof messageSchema>;

/** A turn's input: one user message as text, or a message list (history + the new user message). */
export const turnInputSchema = z.union([z.string().min(1), z.array(messageSchema).min(1)]);
export type TurnInput = z.infer<typeof turnInputSchema>;

/** A user message's text, its parts joined by blank lines; a file as its kind and size, never its bytes. */
export function userText(message: UserMessage): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((p) => (p.type === 'text' ? p.text : describeFile(p))).join('\n\n');
}

export function normalizeInput(input: TurnInput): Message[] {
  return typeof input === 'string' ? [{ role: 'user', content: input }] : input;
}
