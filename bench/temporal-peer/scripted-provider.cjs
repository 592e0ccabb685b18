/**
 * The peer's modelProvider: an AI SDK ProviderV4 whose language models answer from the scripts in
 * BENCH_SCRIPTS (the same JSON our worker's scripted models get). Step N answers the turn's
 * response N, counted from the assistant messages in the prompt, so it needs no state across turns
 * (20 run at once). Only doGenerate: generateText, as the README and samples use it, asks for that.
 */

/** @typedef {import('@ai-sdk/provider').LanguageModelV4GenerateResult} GenerateResult */

const ZERO_USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** @returns {GenerateResult} */
function resultOf(step) {
  if ('text' in step) {
    return {
      content: [{ type: 'text', text: step.text }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: ZERO_USAGE,
      warnings: [],
    };
  }
  return {
    content: step.toolCalls.map((call) => ({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      input: JSON.stringify(call.args),
    })),
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage: ZERO_USAGE,
    warnings: [],
  };
}

/** @returns {import('@ai-sdk/provider').ProviderV4} */
function scriptedProvider(scripts) {
  const languageModel = (modelId) => {
    const steps = scripts[modelId];
    if (!steps) throw new Error(`no script for model ${modelId}`);
    return {
      specificationVersion: 'v4',
      provider: 'scripted',
      modelId,
      supportedUrls: {},
      async doGenerate(options) {
        const index = options.prompt.filter((message) => message.role === 'assistant').length;
        const step = steps[index];
        if (!step) throw new Error(`script ${modelId} has no step ${index}`);
        return resultOf(step);
      },
      async doStream() {
        throw new Error('the scripted peer model answers doGenerate only');
      },
    };
  };
  return {
    specificationVersion: 'v4',
    languageModel,
    embeddingModel: () => {
      throw new Error('no embedding models');
    },
    imageModel: () => {
      throw new Error('no image models');
    },
  };
}

module.exports = { scriptedProvider };
