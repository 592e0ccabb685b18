// Where the pages are: the hash routes main.mjs reads, as links.
import { html } from '/vendor/preact-htm.js';

export const turnHref = (turnId) => `#/turns/${encodeURIComponent(turnId)}`;
export const conversationHref = (conversationId) => `#/conversations/${encodeURIComponent(conversationId)}`;

/** A turn id as a link to its page, cut to fit with the whole id as its title. */
export function TurnLink({ turnId }) {
  return html`<a class="id" title=${turnId} href=${turnHref(turnId)}>${turnId}</a>`;
}

/**
 * A turn's conversation: a link to its page when the turn is one of the conversation's own turns
 * (`{conversationId}#{n}`); a standalone turn's conversation id is only a label, with no page.
 */
export function ConversationOfTurn({ turn }) {
  const { conversationId, turnId } = turn;
  const own =
    turnId.startsWith(`${conversationId}#`) && /^\d+$/.test(turnId.slice(conversationId.length + 1));
  return own
    ? html`<a class="id" title=${conversationId} href=${conversationHref(conversationId)}>${conversationId}</a>`
    : html`<span class="id" title=${conversationId}>${conversationId}</span>`;
}
