/**
 * The peer's turn, written as the @temporalio/ai-sdk README and samples (toolsAgent) show:
 * generateText on temporalProvider.languageModel, tools whose execute is a proxied activity,
 * stopWhen: stepCountIs(n). The model request runs in the plugin's invokeModel activity.
 */
const { generateText, stepCountIs, tool } = require('ai');
const { temporalProvider } = require('@temporalio/ai-sdk/workflow');
const { proxyActivities } = require('@temporalio/workflow');
const { z } = require('zod');

const { wait, noop } = proxyActivities({ startToCloseTimeout: '1 minute' });

/**
 * `sampleForm`: `execute: wait`, exactly as the sample passes `getWeather` — the AI SDK then hands
 * the activity its second argument too (toolCallId, the whole message list, …), which lands in
 * every tool's ActivityTaskScheduled. Off (the default, what the timed runs use): `execute` passes
 * the input only, the form that does not handicap the peer.
 */
function tools(sampleForm) {
  const run = (activity) => (sampleForm ? activity : (input) => activity(input));
  return {
    wait: tool({
      description: 'Waits the given milliseconds, then answers.',
      inputSchema: z.object({ ms: z.number(), i: z.number() }),
      execute: run(wait),
    }),
    noop: tool({
      description: 'Does nothing and answers "ok".',
      inputSchema: z.object({ i: z.number() }),
      execute: run(noop),
    }),
  };
}

async function peerTurn({ model, prompt, maxSteps, sampleForm = false }) {
  const result = await generateText({
    model: temporalProvider.languageModel(model),
    prompt,
    tools: tools(sampleForm),
    stopWhen: stepCountIs(maxSteps),
  });
  return {
    text: result.text,
    steps: result.steps.length,
    toolCalls: result.steps.reduce((n, step) => n + step.toolCalls.length, 0),
    toolResults: result.steps.reduce((n, step) => n + step.toolResults.length, 0),
  };
}

module.exports = { peerTurn };
