/**
 * The keywords OpenAI's strict structured outputs accept (its "supported schemas"): any other one
 * (`default`, `minLength`, `prefixItems`, `oneOf`, …) is refused with HTTP 400 "… is not permitted",
 * or is not known to be accepted. `$schema` is what zod writes at the root, and OpenAI reads past it.
 */
const strictKeywords = new Set([
  '$schema',
  '$ref',
  '$defs',
  'definitions',
  'type',
  'title',
  'description',
  'enum',
  'const',
  'anyOf',
  'allOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
]);

/**
 * Why OpenAI's strict structured outputs (`strict: true`, what `@ai-sdk/openai` sends unless
 * `strictJsonSchema: false`) would refuse this schema, or `undefined` when it fits them. Strict mode
 * takes a subset of JSON Schema: an object at the root; every object closed
 * (`additionalProperties: false`) with every property in `required` — so an optional field (zod's
 * `.optional()`) or a map (`z.record`) does not fit — and only the keywords above. A singleton
 * `allOf` of a `$ref` (zod's recursive references) fits: the provider sends it as the `$ref`.
 */
export function whyNotStrict(schema: unknown): string | undefined {
  if (!isRecord(schema) || schema.type !== 'object') return 'answer: not an object schema';
  return check(schema, 'answer');
}

function check(node: unknown, where: string): string | undefined {
  if (!isRecord(node)) return `${where}: a boolean schema`;
  const unknown = Object.keys(node).find((key) => !strictKeywords.has(key));
  if (unknown !== undefined) return `${where}: ${unknown}`;
  if (node.allOf !== undefined && !isSingletonRef(node.allOf)) return `${where}: allOf`;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('object') || node.properties !== undefined) {
    if (node.additionalProperties !== false) return `${where}: an object open to more properties`;
    const properties = isRecord(node.properties) ? node.properties : {};
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const optional = Object.keys(properties).find((key) => !required.has(key));
    if (optional !== undefined) return `${where}: property ${optional} is optional`;
  }
  if (Array.isArray(node.items)) return `${where}: a tuple`;
  return firstOf([
    ...Object.entries(isRecord(node.properties) ? node.properties : {}).map(
      ([key, child]) =>
        () =>
          check(child, `${where}.${key}`),
    ),
    ...(node.items !== undefined ? [() => check(node.items, `${where}[]`)] : []),
    ...(Array.isArray(node.anyOf)
      ? node.anyOf.map((child, i) => () => check(child, `${where} (anyOf ${i})`))
      : []),
    ...[node.$defs, node.definitions].flatMap((defs) =>
      Object.entries(isRecord(defs) ? defs : {}).map(
        ([key, child]) =>
          () =>
            check(child, `$defs.${key}`),
      ),
    ),
  ]);
}

function firstOf(checks: readonly (() => string | undefined)[]): string | undefined {
  for (const run of checks) {
    const reason = run();
    if (reason !== undefined) return reason;
  }
  return undefined;
}

function isSingletonRef(allOf: unknown): boolean {
  if (!Array.isArray(allOf) || allOf.length !== 1) return false;
  const [only] = allOf;
  return isRecord(only) && Object.keys(only).length === 1 && typeof only.$ref === 'string';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
