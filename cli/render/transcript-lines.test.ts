import { randomBytes } from 'node:crypto';
import pc from 'picocolors';
import { transcriptLines } from './transcript-lines';

describe('a transcript for people', () => {
  it('shows a file as its kind, name and size, never its bytes', () => {
    const bytes = randomBytes(48_200);
    const base64 = bytes.toString('base64');
    const lines = transcriptLines({
      colors: pc.createColors(false),
      transcript: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'file', mediaType: 'image/png', filename: 'shot.png', data: { base64 } },
            { type: 'file', mediaType: 'application/pdf', data: { url: 'https://example.com/a.pdf' } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'screenshot',
              output: {
                status: 'ok',
                content: 'The page',
                attempts: 1,
                files: [
                  {
                    type: 'file',
                    mediaType: 'image/png',
                    data: { blob: { key: 'sha256/ab/abc', sha256: 'a'.repeat(64), bytes: 512_000 } },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const text = lines.join('\n');
    expect(text).toContain('[image/png shot.png, 48.2 KB]');
    expect(text).toContain('[application/pdf at https://example.com/a.pdf]');
    expect(text).toContain('[image/png, 512.0 KB]');
    expect(text).not.toContain(base64.slice(0, 40));
  });
});
