/**
 * The operator agent (test/agents/operator-agent.ts) with two models more, for the CLI's tests.
 * `deploy-held`, for the grant test: its one batch deploys to prod (which asks approval) and then
 * holds on a gate, so the turn still runs after a grant lets the deploy go — long enough to show
 * the grant and revoke it. `structured`, for a turn run with an output schema: its first answer is
 * prose (rejected, asked again), its second the JSON.
 */
import { scriptedModel } from '../../../models';
import { models as operatorModels, tools } from '../../agents/operator-agent';

export { tools };

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
];
