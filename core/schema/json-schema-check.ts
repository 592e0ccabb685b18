import { z } from 'zod';

/**
 * A JSON Schema recorded with a turn (a tool's arguments, a structured answer) as zod checks it:
 * made once per schema object, or the reason it cannot be. It runs inside the turn (on Temporal,
 * in the workflow), where zod is the validator at hand.
 */
export function jsonSchemaChecker(schema: Record<string, unknown>): z.ZodType | string {
  let made = checkers.get(schema);
  if (made === undefined) {
    try {
      made = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (error) {
      made = error instanceof Error ? error.message : String(error);
    }
    checkers.set(schema, made);
  }
  return made;
}

const checkers = new WeakMap<Record<string, unknown>, z.ZodType | string>();
