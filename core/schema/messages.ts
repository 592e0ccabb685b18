import { z } from 'zod';
import { toolOutputSchema } from './tool-output';

/**
 * The provider-neutral transcript. It mirrors the AI SDK's model messages closely so adapters stay
 * thin, and it is what every executor records: the same script gives the same messages everywhere.
 */
export const textPartSchema = z.object({ type: z.literal('text'), text: z.string() });
export const reasoningPartSchema = z.object({ type: z.literal('reasoning'), text: z.string() });
export const toolCallPartSchema = z.object({
  type: z.literal('tool-call'),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  /** Parsed JSON arguments; the raw text when the model sent arguments that are not JSON. */
  input: z.unknown(),
});
export const toolResultPartSchema = z.object({
  type: z.literal('tool-result'),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  output: toolOutputSchema,
});

export const systemMessageSchema = z.object({ role: z.literal('system'), content: z.string() });
/** A user message: text, or text parts (a delivery of background outputs has one part per call). */
export const userMessageSchema = z.object({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(textPartSchema)]),
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

/** A user message's text, its parts joined by blank lines. */
export function userText(message: UserMessage): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((p) => p.text).join('\n\n');
}

export function normalizeInput(input: TurnInput): Message[] {
  return typeof input === 'string' ? [{ role: 'user', content: input }] : input;
}
