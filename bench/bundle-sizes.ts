import { inlineSourceMap } from '../test/support/inline-source-map';

/**
 * The parts of a workflow bundle (code, then an inline base64 source map) a worker pays for at
 * `Worker.create`, in bytes: the code, the map as inlined, and within the map its mappings and
 * the sources' text.
 */
export function bundleSizes({ code }: { code: string }) {
  const parts = inlineSourceMap({ code });
  const bytes = (text: string) => Buffer.byteLength(text);
  return {
    totalBytes: bytes(code),
    codeBytes: bytes(parts.code),
    inlineSourceMapBytes: bytes(parts.mapComment),
    mappingsBytes: bytes(parts.map.mappings),
    sourcesContentBytes: (parts.map.sourcesContent ?? []).reduce(
      (sum, s) => sum + (s === null ? 0 : bytes(s)),
      0,
    ),
    sources: parts.map.sources.length,
  };
}
