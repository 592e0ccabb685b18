import { scriptedModel } from 'durable-turns';

/**
 * `server-everything`'s toggle keeps its state per session ("Started …" the first time in a
 * session, "Stopped …" the next), here in a session per conversation.
 */
export const toggleServer = {
  trusted: true,
  session: 'conversation' as const,
  only: ['toggle-subscriber-updates'],
};

/** Calls the toggle once, then answers. */
export const toggleModel = scriptedModel([
  { toolCalls: [{ id: 'toggle', name: 'everything_toggle-subscriber-updates', args: {} }] },
  { text: 'toggled' },
]);
