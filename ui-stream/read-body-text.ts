/** A request's body as text, read no further than `maxBytes` (a larger one is not read to its end). */
export async function readBodyText(
  request: Request,
  maxBytes: number,
): Promise<{ text: string } | { tooLarge: true }> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) return { tooLarge: true };
  if (!request.body) return { text: '' };
  const reader = request.body.getReader();
  // A Fetch-only decoder (no Buffer): the route runs on edge runtimes too.
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel();
      return { tooLarge: true };
    }
    text += decoder.decode(value, { stream: true });
  }
  return { text: text + decoder.decode() };
}
