/** The turn-shaped workflow of run.cjs: `responses` activities one after another, with a stream or without. */
const {
  allHandlersFinished,
  condition,
  defineUpdate,
  proxyActivities,
  setHandler,
} = require('@temporalio/workflow');
const { WorkflowStream } = require('@temporalio/workflow-streams/workflow');

const { streamResponse } = proxyActivities({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
});

async function streamsTurn({ responses, withStream }) {
  const stream = withStream ? new WorkflowStream() : undefined;
  // Stands for durable-turns' call hand-over (acceptCalls): an update that returns at once.
  setHandler(defineUpdate('probe'), () => 'ok');
  for (let index = 0; index < responses; index++) await streamResponse({ index, withStream });
  if (stream) {
    // Let parked subscriber polls go before the run ends.
    stream.detachPollers();
    await condition(allHandlersFinished);
  }
  return 'ok';
}

module.exports = { streamsTurn };
