import { z } from 'zod';
import { type OutputConfigInput, outputConfigSchema } from './turn-config';

/** What a caller gives for a structured answer: a zod schema (converted here) or a JSON Schema. */
export interface StructuredOutputInput extends Omit<OutputConfigInput, 'schema'> {
  schema: z.ZodType | Record<string, unknown>;
}

/**
 * The output configuration as the turn records it: the schema travels as JSON Schema (a turn's
 * configuration is data, kept in its journal or history), converted from zod on the caller's side.
 */
export function outputConfigOf(input: StructuredOutputInput): z.output<typeof outputConfigSchema> {
  const schema = isZodSchema(input.schema)
    ? (z.toJSONSchema(input.schema) as Record<string, unknown>)
    : input.schema;
  const parsed = outputConfigSchema.safeParse({ ...input, schema });
  if (!parsed.success)
    throw new Error(`invalid output: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

// Read by shape: a zod schema from another copy of zod is not an instance of this one's classes.
function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}
