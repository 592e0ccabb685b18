import type { FastifyReply } from 'fastify';
import type { z } from 'zod';

/**
 * Sends `value` as its response schema has it: fields the schema does not name are dropped, so
 * nothing reaches a viewer by accident (a secret in some object passed along, say).
 */
export function sendJson<S extends z.ZodType>({
  reply,
  schema,
  value,
  status = 200,
}: {
  reply: FastifyReply;
  schema: S;
  value: z.input<S>;
  status?: number;
}): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(schema.parse(value)));
}
