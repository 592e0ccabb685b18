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
 * `execute` passes the input only. The sample's `execute: getWeather` form would also hand each
 * activity the AI SDK's options (toolCallId, the whole message list) into its history event.
 */
function tools() {
  return {
    wait: tool({
      description: 'Waits the given milliseconds, then answers.',
      inputSchema: z.object({ ms: z.number(), i: z.number() }),
      execute: (input) => wait(input),
    }),
    noop: tool({
      description: 'Does nothing and answers "ok".',
      inputSchema: z.object({ i: z.number() }),
      execute: (input) => noop(input),
    }),
  };
}

async function peerTurn({ model, prompt, maxSteps }) {
  const result = await generateText({
    model: temporalProvider.languageModel(model),
    prompt,
    tools: tools(),
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
