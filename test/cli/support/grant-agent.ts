/**
 * The operator agent (test/agents/operator-agent.ts) with three models more, for the CLI's tests.
 * `deploy-held`, for the grant test: its one batch deploys to prod (which asks approval) and then
 * holds on a gate, so the turn still runs after a grant lets the deploy go — long enough to show
 * the grant and revoke it. `structured`, for a turn run with an output schema: its first answer is
 * prose (rejected, asked again), its second the JSON. `tally`, for the fork test: two responses each
 * call the `tally` tool, which notes every run of its own in `tally.log` of the gates folder (so a
 * test counts what really ran, not what a record says); the second response says which output of
 * the first it read, the last which message of the user's came last. `release`, for a sub-agent's
 * approval: the turn calls the `releaser` agent, whose own turn (the same model, told apart by its
 * turn id) deploys to prod, which asks a person.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { agentTool, defineTool, type ModelRequest, userText } from '../../../core';
import { scriptedModel } from '../../../models';
import { models as operatorModels, tools as operatorTools } from '../../agents/operator-agent';

export const tools = [
  ...operatorTools,
  defineTool({
    name: 'tally',
    description: 'Notes that it ran',
    input: z.object({ text: z.string() }),
    execute: ({ text }, ctx) => {
      appendFileSync(
        path.join(process.env.DURABLE_TURNS_TEST_GATES ?? '.', 'tally.log'),
        `${ctx.turnId} ${text}\n`,
      );
      return `tallied ${text}`;
    },
  }),
  agentTool({ name: 'releaser', description: 'Releases', model: 'release' }),
];

/** The content of the last tool output, and the text of the last user message, the request holds. */
const lastToolOutput = (request: ModelRequest) =>
  request.messages.flatMap((m) => (m.role === 'tool' ? m.content : [])).at(-1)?.output.content;
const lastUserText = (request: ModelRequest) =>
  userText(request.messages.filter((m) => m.role === 'user').at(-1) ?? { role: 'user', content: '' });

export const models = [
  ...operatorModels,
  scriptedModel(
    [
      {
        text: 'Deploying, then holding.',
        // The deploy may not run beside anything: it gets wave 1 to itself, the gate wave 2.
        toolCalls: [
          { id: 'deploy_prod', name: 'deploy', args: { target: 'prod' } },
          { id: 'gate_held', name: 'gate', args: { name: 'held' } },
        ],
      },
      { text: 'Deployed, and the gate opened.' },
    ],
    'deploy-held',
  ),
  scriptedModel(
    [
      { text: 'Oslo, with about 709,000 people.', usage: { inputTokens: 8, outputTokens: 7 } },
      { text: '{"city":"Oslo","population":709000}', usage: { inputTokens: 30, outputTokens: 9 } },
    ],
    'structured',
  ),
  scriptedModel(
    [
      { text: 'Tallying one.', toolCalls: [{ id: 'tally_1', name: 'tally', args: { text: 'one' } }] },
      (request) => ({
        text: `Read ${JSON.stringify(lastToolOutput(request))}; tallying two.`,
        toolCalls: [{ id: 'tally_2', name: 'tally', args: { text: 'two' } }],
      }),
      (request) => ({ text: `Done; the user last said: ${lastUserText(request)}` }),
    ],
    'tally',
  ),
  scriptedModel(
    [
      (request) =>
        request.turnId.includes('/agent/')
          ? {
              text: 'Deploying.',
              toolCalls: [{ id: 'deploy_prod', name: 'deploy', args: { target: 'prod' } }],
            }
          : {
              text: 'Asking the releaser.',
              toolCalls: [{ id: 'release_1', name: 'releaser', args: { task: 'ship' } }],
            },
      (request) => ({ text: request.turnId.includes('/agent/') ? 'Shipped to prod.' : 'Released.' }),
    ],
    'release',
  ),
];
