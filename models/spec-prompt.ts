import type {
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
} from '@ai-sdk/provider';
import type { PortableFilePart, PortablePrompt, PortableTextPart } from './to-language-model-prompt';

/**
 * Our prompt in spec v4's encoding: files as tagged data (`{ type: 'data' | 'url' }`), tool
 * outputs with files as `content` lists of text and `file` parts.
 */
export function v4Prompt(prompt: PortablePrompt): LanguageModelV4Prompt {
  return prompt.map((message) => {
    switch (message.role) {
      case 'user':
        return { ...message, content: message.content.map((p) => (p.type === 'text' ? p : v4File(p))) };
      case 'tool':
        return {
          ...message,
          content: message.content.map((result) =>
            result.output.type === 'content'
              ? { ...result, output: v4Content(result.output.value) }
              : { ...result, output: result.output },
          ),
        };
      default:
        return message;
    }
  });
}

/**
 * Our prompt in spec v3's encoding: files as base64 strings or `URL`s, tool outputs with files as
 * `content` lists of text, `image-data` / `file-data` and `image-url` / `file-url` parts.
 */
export function v3Prompt(prompt: PortablePrompt): LanguageModelV3Prompt {
  return prompt.map((message) => {
    switch (message.role) {
      case 'user':
        return { ...message, content: message.content.map((p) => (p.type === 'text' ? p : v3File(p))) };
      case 'tool':
        return {
          ...message,
          content: message.content.map((result) =>
            result.output.type === 'content'
              ? { ...result, output: v3Content(result.output.value) }
              : { ...result, output: result.output },
          ),
        };
      default:
        return message;
    }
  });
}

function v4File(part: PortableFilePart) {
  return {
    type: 'file' as const,
    mediaType: part.mediaType,
    ...(part.filename !== undefined ? { filename: part.filename } : {}),
    data:
      'url' in part.data
        ? { type: 'url' as const, url: new URL(part.data.url) }
        : { type: 'data' as const, data: part.data.base64 },
  };
}

function v4Content(value: readonly (PortableTextPart | PortableFilePart)[]): LanguageModelV4ToolResultOutput {
  return { type: 'content', value: value.map((p) => (p.type === 'text' ? p : v4File(p))) };
}

function v3File(part: PortableFilePart) {
  return {
    type: 'file' as const,
    mediaType: part.mediaType,
    ...(part.filename !== undefined ? { filename: part.filename } : {}),
    data: 'url' in part.data ? new URL(part.data.url) : part.data.base64,
  };
}

function v3Content(value: readonly (PortableTextPart | PortableFilePart)[]): LanguageModelV3ToolResultOutput {
  return {
    type: 'content',
    value: value.map((p) => {
      if (p.type === 'text') return p;
      const image = p.mediaType.startsWith('image/');
      if ('url' in p.data) return { type: image ? 'image-url' : 'file-url', url: p.data.url };
      return image
        ? { type: 'image-data', data: p.data.base64, mediaType: p.mediaType }
        : {
            type: 'file-data',
            data: p.data.base64,
            mediaType: p.mediaType,
            ...(p.filename !== undefined ? { filename: p.filename } : {}),
          };
    }),
  };
}
