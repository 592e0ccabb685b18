import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NonRetryableToolError } from '../core/tools/run-tool-attempt';
import { type ToolFile, withFiles } from '../core/tools/tool-files';

type ContentBlock = CallToolResult['content'][number];

/** What the model reads of a block that is not a file: MCP's own shape, so its type stays. */
type ReadBlock =
  | { type: 'text'; text: string }
  | { type: 'resource'; uri: string; mimeType?: string; text: string }
  | { type: 'resource_link'; uri: string; name: string; description?: string; mimeType?: string }
  | { type: 'image' | 'audio' | 'resource'; file: number; mimeType: string; uri?: string };

/**
 * An MCP tool result as our tool's result. Text alone reads as text, and structured content (with
 * only its text serialization beside it) as that value. Otherwise the content keeps
 * MCP's blocks in order, with images, audio and binary resources moved to the result's files (the
 * host keeps them, as for any tool's files) and named in the content by their place among them;
 * `structuredContent` comes along. A result the server marked `isError` is
 * an error output, not retried: the tool ran and said it failed. A `notice` comes first: the
 * text's first line, or the first block (then structured content keeps the block form).
 */
export function mcpToolResult({
  result,
  server,
  tool,
  notice,
}: {
  result: CallToolResult;
  server: string;
  tool: string;
  notice?: string;
}): unknown {
  const files: ToolFile[] = [];
  const blocks = (result.content ?? []).map((block) => readBlock(block, files));
  if (result.isError) {
    const text = blocks.map((block) => ('text' in block ? block.text : JSON.stringify(block))).join('\n');
    throw new NonRetryableToolError(
      `${notice === undefined ? '' : `${notice}\n`}MCP tool ${tool} of server ${server} reported an error: ${text || '(no message)'}`,
    );
  }
  const allText = blocks.every((block) => block.type === 'text');
  const structured = result.structuredContent;
  const lead: ReadBlock[] = notice === undefined ? [] : [{ type: 'text', text: notice }];
  // Text beside structured content is, by the spec, its serialization for older clients: the
  // model reads the structured value once, not twice.
  const content =
    allText && (structured === undefined || notice === undefined)
      ? (structured ?? [...lead, ...blocks].map((block) => (block as { text: string }).text).join('\n'))
      : {
          content: allText ? lead : [...lead, ...blocks],
          ...(structured !== undefined ? { structuredContent: structured } : {}),
        };
  return files.length > 0 ? withFiles(content, files) : content;
}

function readBlock(block: ContentBlock, files: ToolFile[]): ReadBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      files.push({ mediaType: block.mimeType, data: { base64: block.data } });
      return { type: block.type, file: files.length, mimeType: block.mimeType };
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: block.uri,
        name: block.name,
        ...(block.description !== undefined ? { description: block.description } : {}),
        ...(block.mimeType !== undefined ? { mimeType: block.mimeType } : {}),
      };
    case 'resource': {
      const { resource } = block;
      if ('text' in resource && typeof resource.text === 'string')
        return {
          type: 'resource',
          uri: resource.uri,
          text: resource.text,
          ...(resource.mimeType !== undefined ? { mimeType: resource.mimeType } : {}),
        };
      const mediaType = resource.mimeType ?? 'application/octet-stream';
      files.push({ mediaType, data: { base64: 'blob' in resource ? resource.blob : '' } });
      return { type: 'resource', file: files.length, mimeType: mediaType, uri: resource.uri };
    }
    default:
      // A block type newer than this SDK: kept as the server sent it.
      return { type: 'text', text: JSON.stringify(block) };
  }
}
