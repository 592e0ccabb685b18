/**
 * The operator agent (test/agents/operator-agent.ts) with one model more, for the CLI's grant
 * test: its one batch deploys to prod (which asks approval) and then holds on a gate, so the turn
 * still runs after a grant lets the deploy go — long enough to show the grant and revoke it.
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
];
