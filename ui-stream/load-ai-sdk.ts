/**
 * The AI SDK (`ai`, 7 or later), loaded only when a UI stream is made or read: it is an optional
 * peer dependency, which an app that renders with `useChat` has already; nobody else installs it.
 */
export function loadAiSdk(): typeof import('ai') {
  try {
    return require('ai') as typeof import('ai');
  } catch (error) {
    throw new Error(
      'durable-turns/ui-stream needs the AI SDK (an optional peer dependency): `npm install ai@7`',
      { cause: error },
    );
  }
}
