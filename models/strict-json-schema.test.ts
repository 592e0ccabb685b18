import { z } from 'zod';
import { whyNotStrict } from './strict-json-schema';

const json = (schema: z.ZodType) => z.toJSONSchema(schema);

describe('whether OpenAI’s strict structured outputs take a schema', () => {
  it.each([
    [
      'every property required, closed objects',
      z.object({ city: z.string(), population: z.number().int().positive() }),
    ],
    [
      'nullable in place of optional, enums, literals, unions, formats',
      z.object({
        nickname: z.string().nullable(),
        kind: z.enum(['capital', 'town']),
        tag: z.literal('city'),
        id: z.union([z.string(), z.number()]),
        mail: z.email(),
      }),
    ],
    ['nested objects in arrays', z.object({ districts: z.array(z.object({ name: z.string() })).max(20) })],
  ])('takes %s', (_, schema) => {
    expect(whyNotStrict(json(schema))).toBeUndefined();
  });

  it('takes a recursive schema (its $defs and $refs)', () => {
    const node: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(node);
      },
    });
    expect(whyNotStrict(json(z.object({ root: node })))).toBeUndefined();
    // zod 4's recursive references as a one-item allOf, which the provider sends as the $ref.
    expect(
      whyNotStrict({
        type: 'object',
        properties: { next: { allOf: [{ $ref: '#' }] } },
        required: ['next'],
        additionalProperties: false,
      }),
    ).toBeUndefined();
  });

  it.each([
    [
      'an optional field',
      z.object({ city: z.string(), nickname: z.string().optional() }),
      'answer: property nickname is optional',
    ],
    [
      'an optional field deep in an array',
      z.object({ tags: z.array(z.object({ k: z.string(), v: z.number().optional() })) }),
      'answer.tags[]: property v is optional',
    ],
    ['a map', z.object({ facts: z.record(z.string(), z.string()) }), 'answer.facts: propertyNames'],
    ['a default', z.object({ city: z.string().default('Oslo') }), 'answer.city: default'],
    ['a minimum length', z.object({ city: z.string().min(1) }), 'answer.city: minLength'],
    ['a tuple', z.object({ at: z.tuple([z.number(), z.number()]) }), 'answer.at: prefixItems'],
    ['a root that is not an object', z.array(z.string()), 'answer: not an object schema'],
  ])('refuses %s, saying why', (_, schema, reason) => {
    expect(whyNotStrict(json(schema))).toBe(reason);
  });

  it('refuses an object open to more properties, as a JSON Schema written by hand often is', () => {
    expect(
      whyNotStrict({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
    ).toBe('answer: an object open to more properties');
  });
});
