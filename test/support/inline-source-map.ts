import { z } from 'zod';

const sourceMapSchema = z.object({
  mappings: z.string(),
  sources: z.array(z.string()),
  sourcesContent: z.array(z.string().nullable()).optional(),
});
export type InlineSourceMap = z.infer<typeof sourceMapSchema>;

/**
 * A workflow bundle split into its code and the source map webpack inlined after it (as
 * `//# sourceMappingURL=data:application/json;…;base64,…`, the one place Temporal looks for it).
 */
export function inlineSourceMap({ code }: { code: string }): {
  code: string;
  mapComment: string;
  map: InlineSourceMap;
} {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  const base64At = code.indexOf('base64,', at);
  if (at < 0 || base64At < 0)
    throw new Error('the bundle has no inline source map: was it built by bundleWorkflowCode?');
  const json = Buffer.from(code.slice(base64At + 'base64,'.length).trimEnd(), 'base64').toString();
  return {
    code: code.slice(0, at),
    mapComment: code.slice(at),
    map: sourceMapSchema.parse(JSON.parse(json)),
  };
}
