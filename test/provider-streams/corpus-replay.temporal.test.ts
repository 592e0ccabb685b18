import { TemporalKit } from '../temporal/support/kit';
import { readWholeCorpus } from './corpus';
import { describeCorpusReplay } from './describe-corpus-replay';
import { describeReasoningCarriedBack, describeRequestsAsRecorded } from './describe-reasoning-carried-back';
import { temporalHost } from './temporal-host';

/**
 * A third of the recorded conversations on Temporal, held to the same checks as in process: every
 * wire format, parallel calls, a call cut off by max_tokens, reasoning with its metadata (Anthropic
 * signed and redacted thinking, Responses encrypted reasoning, DeepSeek's reasoning with a call),
 * a server tool beside a client tool, and in-stream errors.
 */
const chosen = [
  'openai-chat/gpt-4o-parallel-then-args-then-final-tool',
  'openai-chat/gpt-4o-text-before-tool',
  'openai-responses/gpt-5.1-codex-reasoning-3-tools-then-text',
  'openai-responses/bedrock-mantle-gpt-5.6-two-tools-then-text',
  'openai-responses/o3-mini-reasoning-summary-text',
  'openai-responses/gpt-5-nano-insufficient-quota-error',
  'anthropic/sonnet-4.5-three-parallel-tools',
  'anthropic/sonnet-4.5-thinking-text',
  'anthropic/sonnet-4.5-thinking-then-tool',
  'anthropic/sonnet-4.5-redacted-thinking',
  'anthropic/sonnet-4.6-server-tool-then-client-tool',
  'anthropic/sonnet-4.5-max-tokens-mid-tool-args',
  'openai-compatible/deepseek-reasoning-tool',
  'openai-compatible/groq-gpt-oss-tool-use-failed-error',
];
const corpus = readWholeCorpus();
const conversations = chosen.map((id) => {
  const conversation = corpus.find((c) => c.id === id);
  if (!conversation) throw new Error(`${id} is not in the corpus`);
  return conversation;
});

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const runOf = describeCorpusReplay({ conversations, host: temporalHost(kit), hostName: 'on Temporal' });

describeReasoningCarriedBack({
  title: 'on Temporal, reasoning goes back to the provider with its metadata, as the provider requires',
  conversations,
  runOf,
});

describeRequestsAsRecorded({
  title: 'on Temporal, each follow-up request carries the response back as the recorded client’s did',
  conversations,
  runOf,
});
