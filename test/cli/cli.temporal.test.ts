import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { Connection } from '@temporalio/client';
import { approverName } from '../../cli/approver-name';
import { ConversationClient } from '../../client/conversation-client';
import { TurnClient } from '../../client/turn-client';
import { freePort } from '../../devserver/free-port';
import { openGate, streamedWords } from '../agents/operator-agent';
import { uniqueTurnId } from '../conformance/support';
import { testTemporal } from '../support/temporal-env';
import { pollFor } from '../temporal/support/poll';
import {
  anyEscape,
  CliProcess,
  cli,
  colourCodes,
  cursorUp,
  jsonLines,
  lastFrame,
} from './support/cli-process';

/**
 * The `durable-turns` command line against the suite's Temporal server, each command a real
 * process, the turns run by a real worker process (`durable-turns worker`) for the test agent.
 */
const taskQueue = `cli-${process.pid}`;
const gates = mkdtempSync(path.join(tmpdir(), 'cli-gates-'));
const env = { DURABLE_TURNS_TASK_QUEUE: taskQueue, DURABLE_TURNS_TEST_GATES: gates };
// The operator agent, and a model whose turn holds after its deploy (for the grant test).
const agent = path.join(__dirname, 'support/grant-agent.ts');
let worker: CliProcess;

/**
 * A test here starts up to this many CLI processes one after another (the command, a second one
 * that answers it, checks after): its time is mostly theirs to start, so it gets that many starts.
 */
const processStartsPerTest = 8;

beforeAll(async () => {
  testTemporal();
  worker = new CliProcess({ args: ['worker', '--agent', agent, '--json'], env });
  await worker.waitFor({ pattern: /"worker":"ready"/, what: 'the worker was ready' });
  // What one CLI process takes to start and exit on this machine now (busy or not), times the starts.
  const probe = await cli({ args: ['--help'] });
  // A command that connects loads more than --help does: three such starts' worth per process.
  jest.setTimeout(Math.max(60_000, processStartsPerTest * 3 * probe.ms));
}, 120_000);
afterAll(async () => {
  worker?.kill('SIGINT');
  await worker?.done;
  rmSync(gates, { recursive: true, force: true });
});

/**
 * `run` with a turn started on `taskQueue`, where no worker polls: it is running, as the server
 * says, until the end of `run`, which terminates it.
 */
async function withUnpolledTurn({
  turnId,
  taskQueue: queue,
  run,
}: {
  turnId: string;
  taskQueue: string;
  run: () => Promise<void>;
}): Promise<void> {
  const { address, namespace } = testTemporal();
  const connection = await Connection.connect({ address });
  try {
    const client = new TurnClient({ connection, namespace, taskQueue: queue, blobStore: false });
    await client.start({ turnId, input: 'anyone?', model: 'quick' });
    await run();
  } finally {
    await connection.workflowService
      .terminateWorkflowExecution({
        namespace,
        workflowExecution: { workflowId: turnId },
        reason: 'test over',
      })
      .catch(() => {});
    await connection.close();
  }
}

describe('durable-turns run', () => {
  test('--json prints every journal entry as a JSON line as it happens, then the result; exit 0 for a completed turn', async () => {
    const turnId = uniqueTurnId('cli-json');
    const run = await cli({
      args: ['run', '--json', '--model', 'quick', '--turn-id', turnId, 'echo twice'],
      env,
    });
    expect(run.code).toBe(0);
    const lines = jsonLines({ text: run.stdout });
    expect(lines[0]).toMatchObject({ kind: 'entry', seq: 1, entry: { type: 'turn.started', turnId } });
    const completed = lines.flatMap((l) =>
      l.kind === 'entry' && (l.entry as { type: string }).type === 'tool.completed' ? [l.entry] : [],
    );
    expect(completed).toEqual([
      expect.objectContaining({
        toolCallId: 'echo_a',
        output: expect.objectContaining({ status: 'ok', content: 'echo: a' }),
      }),
      expect.objectContaining({
        toolCallId: 'echo_b',
        output: expect.objectContaining({ status: 'ok', content: 'echo: b' }),
      }),
    ]);
    expect(lines.at(-1)).toMatchObject({
      kind: 'result',
      turnId,
      status: 'completed',
      text: 'Both echoes came back.',
    });
    const seqs = lines.filter((l) => l.kind === 'entry').map((l) => l.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  test('--json streams the answer as text-delta lines before its response is recorded; the recorded text is what streamed', async () => {
    const turnId = uniqueTurnId('cli-stream');
    const run = new CliProcess({
      args: ['run', '--json', '--model', 'streaming', '--turn-id', turnId, 'say fifteen words'],
      env,
    });
    // The model streams half its words and holds until the test lets it go on: the watcher reads
    // them from the model activity's heartbeats while the response is still open.
    await run.waitFor({ pattern: /"kind":"text-delta"/, what: 'the first streamed text' });
    openGate({ folder: gates, turnId, gate: 'stream-rest' });
    const ended = await run.done;
    expect(ended.code).toBe(0);
    const lines = jsonLines({ text: ended.stdout });
    const responded = lines.findIndex(
      (l) => l.kind === 'entry' && (l.entry as { type: string }).type === 'model.responded',
    );
    const deltas = lines.slice(0, responded).filter((l) => l.kind === 'text-delta');
    expect(deltas.length).toBeGreaterThan(0);
    const streamed = deltas.map((l) => l.text as string).join('');
    const final = streamedWords.join(' ');
    // Text a watcher missed shows as an ellipsis; what it did see is the recorded text, in order.
    for (const piece of streamed.split('…').filter(Boolean)) expect(final).toContain(piece);
    expect(streamed.startsWith('one ')).toBe(true);
    expect(lines.at(-1)).toMatchObject({ kind: 'result', status: 'completed', text: final });
  });

  test('on a terminal it redraws the turn live: each wave and call with state, attempt and duration, usage, then the answer', async () => {
    const turnId = uniqueTurnId('cli-tty');
    const run = await cli({
      args: ['run', '--model', 'quick', '--turn-id', turnId, 'echo twice'],
      env,
      terminal: true,
    });
    expect(run.code).toBe(0);
    // Redrawn in place: the cursor moves up over the previous frame, in colour.
    expect(run.stdout).toMatch(cursorUp);
    expect(run.stdout).toMatch(colourCodes);
    const frame = lastFrame({ screen: run.stdout, headline: `✔ turn ${turnId} completed` });
    expect(frame).toMatch(
      /response 1 {2}Echoing twice\.\n {4}wave 1\n {6}✔ echo \{text: "a"\} {2}ok · attempt 1 · \d+ ms\n {6}✔ echo \{text: "b"\} {2}ok · attempt 1 · \d+ ms/,
    );
    expect(frame).toMatch(/response 2 {2}Both echoes came back\./);
    expect(frame).toMatch(/41 tokens \(30 in, 11 out\) · 2 responses · 2 tool calls · /);
    expect(frame.trimEnd().endsWith('Both echoes came back.')).toBe(true);
  });

  test('with NO_COLOR on a terminal it still redraws, without colour', async () => {
    const run = await cli({
      args: ['run', '--model', 'quick', 'echo twice'],
      env: { ...env, NO_COLOR: '1' },
      terminal: true,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(colourCodes);
    expect(stripVTControlCharacters(run.stdout)).toContain('✔ echo {text: "a"}  ok · attempt 1');
  });

  test('piped, it logs plain lines on stderr (no escape codes) and prints only the answer on stdout; a structured answer (--output-schema) is its value as JSON, after the log says which answer was asked again', async () => {
    const turnId = uniqueTurnId('cli-piped');
    const run = await cli({ args: ['run', '--model', 'quick', '--turn-id', turnId, 'echo twice'], env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Both echoes came back.\n');
    expect(run.stderr).not.toMatch(anyEscape);
    expect(run.stderr).toContain('  wave 1: echo #echo_a {text: "a"} attempt 1 started');
    expect(run.stderr).toMatch(/ {2}echo #echo_b ok \(1 attempt, \d+ ms\)/);
    expect(run.stderr).toContain(`turn ${turnId} completed`);

    const structuredId = uniqueTurnId('cli-structured');
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'integer' } },
      required: ['city', 'population'],
    };
    const structured = await cli({
      args: [
        'run',
        '--model',
        'structured',
        '--turn-id',
        structuredId,
        '--output-schema',
        JSON.stringify(schema),
        'Which city?',
      ],
      env,
    });
    expect(structured.code).toBe(0);
    expect(structured.stderr).toMatch(
      /\n {2}answer 1 did not match the output schema; asked again: the answer is not JSON \(.+\)\n/,
    );
    expect(structured.stdout).toBe('{\n  "city": "Oslo",\n  "population": 709000\n}\n');
    const shown = await cli({ args: ['show', structuredId], env });
    expect(shown.stdout).toContain(
      `turn ${structuredId} completed\n54 tokens (38 in, 16 out) · 2 responses · 0 tool calls\noutput:\n    {\n      "city": "Oslo",\n      "population": 709000\n    }\n`,
    );
    // The rejection's message is the user's in the transcript: the model read it.
    expect(shown.stdout).toContain(
      'user:\n    Your answer does not match the required output schema: the answer is not JSON',
    );
  });

  test('a call waiting for approval shows the exact command that answers it; run in a second process, it lets the turn go on', async () => {
    const turnId = uniqueTurnId('cli-approve');
    const run = new CliProcess({
      args: ['--task-queue', taskQueue, 'run', '--model', 'approval', '--turn-id', turnId, 'deploy'],
      terminal: true,
    });
    const [, command = ''] = await run.waitFor({
      pattern: /\n {4}(durable-turns [^\r\n]* approve [^\r\n]*)\r?\n/,
      what: 'the approve command showed',
    });
    expect(command).toBe(`durable-turns --task-queue ${taskQueue} approve ${turnId} deploy_prod`);

    const shown = await cli({ args: ['show', turnId, '--json'], env });
    expect(JSON.parse(shown.stdout)).toMatchObject({
      running: true,
      state: {
        phase: 'awaiting-approval',
        calls: [{ toolCallId: 'deploy_prod', phase: 'awaiting-approval' }],
      },
    });

    const approve = await cli({ args: [...command.split(' ').slice(1), '--reason', 'ship it'] });
    expect(approve).toMatchObject({ code: 0, stdout: `approved deploy_prod of turn ${turnId}\n` });
    const ended = await run.done;
    expect(ended.code).toBe(0);
    const frame = lastFrame({ screen: ended.stdout, headline: `✔ turn ${turnId} completed` });
    // Nobody named with --as: the decision is the OS user's.
    const by = approverName();
    expect(frame).toContain(`✔ deploy {target: "prod"}  ok · approved${by ? ` by ${by}` : ''} · attempt 1`);
    expect(frame.trimEnd().endsWith('Deployed to prod.')).toBe(true);
  });

  test('--json shows the approval request; a reject from a second process reaches the model with its reason', async () => {
    const turnId = uniqueTurnId('cli-reject');
    const run = await deployWaiting({ turnId, json: true });
    const requestedAt = Date.now();
    const watching = new CliProcess({ args: ['watch', turnId], env });
    const waiting = await waitForListed({ turnId });
    expect(waiting).toMatchObject({ turnId, status: 'running', waitingForApproval: true });

    // Before the reject process starts: the decision cannot be recorded earlier than this.
    const rejectStartedAt = Date.now();
    const reject = await cli({
      args: ['reject', turnId, 'deploy_prod', '--reason', 'not on a Friday', '--as', 'carol', '--json'],
      env,
    });
    expect(reject.code).toBe(0);
    expect(JSON.parse(reject.stdout)).toEqual({
      turnId,
      toolCallId: 'deploy_prod',
      approved: false,
      decision: 'reject',
      by: 'carol',
      reason: 'not on a Friday',
    });
    const ended = await run.done;
    expect(ended.code).toBe(0);
    const lines = jsonLines({ text: ended.stdout });
    expect(lines.map((l) => l.entry)).toContainEqual({
      type: 'tool.approval_decided',
      toolCallId: 'deploy_prod',
      approved: false,
      reason: 'not on a Friday',
      by: 'carol',
      via: 'cli',
      at: expect.any(Number),
    });
    expect(lines.at(-1)).toMatchObject({
      kind: 'result',
      status: 'completed',
      text: 'The deploy was rejected.',
    });

    const again = await cli({ args: ['approve', turnId, 'deploy_prod'], env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`turn ${turnId} already ended (completed)`);

    // A watcher says it took at least its wait for the decision, though no timed entry (an
    // attempt) came after the request: its end is its workflow's close.
    const watched = await watching.done;
    expect(watched.code).toBe(0);
    const [, amount = '', unit = ''] = / · (\d+(?:\.\d+)?) (ms|s)\n*$/.exec(watched.stderr) ?? [];
    const unitMs = unit === 's' ? 1_000 : 1;
    const tookMs = Number(amount) * unitMs;
    // It is printed rounded: the true time is at most half its last digit above what it says.
    const decimals = amount.split('.')[1]?.length ?? 0;
    const roundingMs = (unitMs * 10 ** -decimals) / 2;
    // The test saw the request after it was made, so this wait is a lower bound of the real one.
    expect(tookMs + roundingMs).toBeGreaterThanOrEqual(rejectStartedAt - requestedAt);
  });

  test('a cancel from a second process ends the turn the first one shows: interrupted call, status cancelled, exit 4', async () => {
    const turnId = uniqueTurnId('cli-cancel');
    const run = new CliProcess({
      args: ['run', '--model', 'slow', '--turn-id', turnId, 'wait'],
      env,
      terminal: true,
    });
    await run.waitFor({ pattern: /wait \{ms: 60000\} {2}running · attempt 1/, what: 'the call was running' });
    const watch = new CliProcess({ args: ['watch', turnId, '--json'], env });
    await watch.waitFor({ pattern: /"type":"tool.attempt_started"/, what: 'watch saw the call start' });
    const cancel = await cli({ args: ['cancel', turnId], env });
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toContain(`cancel requested for turn ${turnId}`);
    const ended = await run.done;
    expect(ended.code).toBe(4);
    const frame = lastFrame({ screen: ended.stdout, headline: `✖ turn ${turnId} cancelled` });
    expect(frame).toMatch(/⊘ wait \{ms: 60000\} {2}interrupted/);

    const watched = await watch.done;
    expect(watched.code).toBe(4);
    expect(jsonLines({ text: watched.stdout }).at(-1)).toMatchObject({
      kind: 'result',
      turnId,
      status: 'cancelled',
    });
    // The model's text before the cancel is no answer: a script reading stdout gets none.
    const piped = await cli({ args: ['watch', turnId], env });
    expect(piped.code).toBe(4);
    expect(piped.stdout).toBe('');
    expect(piped.stderr).toContain(
      "The turn ended cancelled, so this last text of the model's is no answer: Waiting a minute.",
    );
    // Its workflow completed; the turn was cancelled, and that is what a second cancel is told.
    const again = await cli({ args: ['cancel', turnId], env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`turn ${turnId} already ended (cancelled); there is nothing to cancel`);
  });
});

describe('deciding on a call', () => {
  test("approve --input: arguments that fail the tool's schema are refused and nothing runs; valid ones (from @file, --as alice) run in place of the model's, and the log and show say who edited them", async () => {
    const turnId = uniqueTurnId('cli-edit');
    const run = await deployWaiting({ turnId, json: false });
    const approve = (args: string[]) => cli({ args: ['approve', turnId, 'deploy_prod', ...args], env });

    // Not JSON: the command line's mistake, caught before anything is sent.
    const notJson = await approve(['--input', '{target: staging}']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--input: not JSON');
    const refused = await approve(['--input', '{"target":5}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `cannot approve deploy_prod of turn ${turnId}: the edited arguments do not match deploy's schema: `,
    );
    expect(refused.stderr).toContain(
      `nothing ran, the call still waits; \`durable-turns show ${turnId}\` lists the calls waiting`,
    );
    const waiting = await cli({ args: ['show', turnId, '--json'], env });
    expect(JSON.parse(waiting.stdout)).toMatchObject({
      running: true,
      state: { calls: [{ toolCallId: 'deploy_prod', phase: 'awaiting-approval', attempts: 0 }] },
    });

    const edited = path.join(gates, `${process.pid}-edited-arguments.json`);
    writeFileSync(edited, '{"target":"staging"}\n');
    const approved = await approve(['--input', `@${edited}`, '--as', 'alice', '--json']);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toEqual({
      turnId,
      toolCallId: 'deploy_prod',
      approved: true,
      decision: 'approve',
      by: 'alice',
      input: { target: 'staging' },
    });
    const ended = await run.done;
    expect(ended.code).toBe(0);
    expect(ended.stderr).toContain(
      'deploy #deploy_prod approved by alice (arguments edited: {"target":"staging"})',
    );

    // The model's call stays as it made it; its output says which arguments ran, and whose they were.
    const shown = await cli({ args: ['show', turnId], env });
    expect(shown.stdout).toContain('→ deploy #deploy_prod {target: "prod"}');
    expect(shown.stdout).toContain(
      'tool deploy #deploy_prod ok:\n    deployed staging\n    [approved by alice (arguments edited: {"target":"staging"})]\n',
    );
  });

  test("respond: the approver's text is the call's output, the tool never runs, and show says who answered", async () => {
    const turnId = uniqueTurnId('cli-respond');
    const run = await deployWaiting({ turnId, json: true });
    const responded = await cli({
      args: ['respond', turnId, 'deploy_prod', 'saved by hand', '--as', 'bob', '--json'],
      env,
    });
    expect(responded.code).toBe(0);
    expect(JSON.parse(responded.stdout)).toEqual({
      turnId,
      toolCallId: 'deploy_prod',
      approved: false,
      decision: 'respond',
      by: 'bob',
      output: 'saved by hand',
    });
    const ended = await run.done;
    expect(ended.code).toBe(0);
    const entries = jsonLines({ text: ended.stdout }).flatMap((l) =>
      l.kind === 'entry' ? [l.entry as { type: string }] : [],
    );
    expect(entries).toContainEqual({
      type: 'tool.approval_decided',
      toolCallId: 'deploy_prod',
      approved: false,
      decision: 'respond',
      output: 'saved by hand',
      by: 'bob',
      via: 'cli',
      at: expect.any(Number),
    });
    expect(entries.filter((e) => e.type === 'tool.attempt_started')).toEqual([]);
    expect(entries).toContainEqual({
      type: 'tool.completed',
      toolCallId: 'deploy_prod',
      output: { status: 'ok', content: 'saved by hand', attempts: 0, answeredBy: 'bob' },
    });

    const shown = await cli({ args: ['show', turnId], env });
    expect(shown.stdout).toContain(
      "tool deploy #deploy_prod ok:\n    saved by hand\n    [answered by bob in the tool's place; the tool did not run]\n",
    );
  });

  test("a sub-agent's call waiting for approval shows on its parent (show, list --waiting-for-approval) with the commands that answer it there; approve on the parent runs it in the sub-agent", async () => {
    const turnId = uniqueTurnId('cli-sub-approve');
    const child = `${turnId}/agent/release_1`;
    const run = new CliProcess({
      args: ['run', '--json', '--model', 'release', '--turn-id', turnId, 'release'],
      env,
    });
    // The sub-agent tells its parent as soon as its call waits: the parent's watch says so, and its
    // state lists it.
    const [reported = ''] = await run.waitFor({
      pattern: /\{"kind":"sub-agent-approvals"[^\n]*\}/,
      what: 'the parent’s watch reported its sub-agent’s waiting call',
    });
    const waiting = [
      expect.objectContaining({
        turnId: child,
        toolCallId: 'deploy_prod',
        toolName: 'deploy',
        input: { target: 'prod' },
        agentCallId: 'release_1',
      }),
    ];
    expect(JSON.parse(reported)).toEqual({ kind: 'sub-agent-approvals', approvals: waiting });
    const state = JSON.parse((await cli({ args: ['show', turnId, '--json'], env })).stdout).state;
    expect(state.subAgentApprovals).toEqual(waiting);
    expect(await waitForListed({ turnId })).toMatchObject({ status: 'running', waitingForApproval: true });
    const shown = await cli({ args: ['show', turnId], env });
    expect(shown.stdout).toContain(`sub-agent ${child} waits: deploy #deploy_prod`);
    expect(shown.stdout).toContain(`approve: durable-turns approve ${turnId} deploy_prod\n`);

    const approve = await cli({ args: ['approve', turnId, 'deploy_prod', '--as', 'dave'], env });
    expect(approve).toMatchObject({
      code: 0,
      stdout: `approved deploy_prod of turn ${child} (a sub-agent of ${turnId})\n`,
    });
    const ended = await run.done;
    expect(ended.code).toBe(0);
    const lines = jsonLines({ text: ended.stdout });
    expect(lines.at(-1)).toMatchObject({ kind: 'result', status: 'completed', text: 'Released.' });
    // The parent's call is the sub-agent's answer, after the deploy ran in the sub-agent.
    expect(lines.map((l) => l.entry)).toContainEqual(
      expect.objectContaining({
        type: 'tool.completed',
        toolCallId: 'release_1',
        output: expect.objectContaining({ status: 'ok', content: 'Shipped to prod.' }),
      }),
    );
  });

  test('grant: one whose matcher covers the waiting call lets it run, approved by the grant; show lists the grant until it is revoked; revoking it again fails naming it (exit 1)', async () => {
    const turnId = uniqueTurnId('cli-grant');
    const run = await deployWaiting({ turnId, json: false, model: 'deploy-held' });
    const granted = await cli({
      args: [
        'grant',
        turnId,
        'deploy',
        '--match',
        'target=prod',
        '--id',
        'prod-deploys',
        '--reason',
        'release day',
        '--as',
        'alice',
        '--json',
      ],
      env,
    });
    expect(granted.code).toBe(0);
    expect(JSON.parse(granted.stdout)).toEqual({
      turnId,
      grantId: 'prod-deploys',
      toolName: 'deploy',
      match: [{ path: 'target', equals: 'prod' }],
      scope: 'turn',
      reason: 'release day',
      by: 'alice',
    });
    // The deploy ran (its wave is over) and the turn holds on its gate: still running, to be shown.
    await run.waitFor({ pattern: /gate #gate_held .* attempt 1 started/, what: 'the deploy ran' });
    const shown = await cli({ args: ['show', turnId], env });
    expect(shown.stdout).toMatch(
      /deploy #deploy_prod {2}ok · approved by grant prod-deploys \(alice\) · attempt 1\n/,
    );
    expect(shown.stdout).toMatch(
      /grants in force \(its calls run without asking\):\n {2}prod-deploys {2}deploy calls where target = "prod" {2}by alice via cli at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\n {6}reason: release day\n/,
    );
    expect(shown.stdout).toContain(`revoke: durable-turns revoke ${turnId} prod-deploys\n`);

    const revoke = () => cli({ args: ['revoke', turnId, 'prod-deploys', '--as', 'bob'], env });
    const revoked = await revoke();
    expect(revoked).toMatchObject({
      code: 0,
      stdout: `revoked grant prod-deploys of turn ${turnId}: the calls it allowed ask again\n`,
    });
    // The call it let run stays approved by it; the grant is no longer in force.
    const after = await cli({ args: ['show', turnId], env });
    expect(after.stdout).toContain('approved by grant prod-deploys (alice)');
    expect(after.stdout).not.toContain('grants in force');
    const again = await revoke();
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `durable-turns: cannot revoke grant prod-deploys of turn ${turnId}: no grant "prod-deploys" is in force in turn ${turnId}; \`durable-turns show ${turnId}\` lists the grants in force\n`,
    );

    openGate({ folder: gates, turnId, gate: 'held' });
    const ended = await run.done;
    expect(ended.code).toBe(0);
    expect(ended.stderr).toContain(
      '  granted prod-deploys by alice via cli: deploy calls where target = "prod" run without asking (release day)\n',
    );
    expect(ended.stderr).toContain('deploy #deploy_prod approved by grant prod-deploys (alice)\n');
    expect(ended.stderr).toContain(
      '  revoked grant prod-deploys by bob via cli: the calls it allowed ask again\n',
    );
  });
});

test('Ctrl-C stops showing the turn, not the turn: exit 130, and the printed cancel command stops it', async () => {
  const turnId = uniqueTurnId('cli-ctrl-c');
  const run = new CliProcess({
    args: ['run', '--model', 'slow', '--turn-id', turnId, 'wait'],
    env,
    terminal: true,
  });
  await run.waitFor({ pattern: /wait \{ms: 60000\} {2}running · attempt 1/, what: 'the call was running' });
  run.type('\x03');
  const ended = await run.done;
  expect(ended.code).toBe(130);
  const [, command = ''] =
    /`(durable-turns cancel [^`]+)` to stop it/.exec(
      stripVTControlCharacters(ended.stdout).replace(/\r?\n/g, ''),
    ) ?? [];
  expect(command).toBe(`durable-turns cancel ${turnId}`);
  expect((await cli({ args: ['show', turnId, '--json'], env })).stdout).toContain('"running":true');
  expect((await cli({ args: command.split(' ').slice(1), env })).code).toBe(0);
});

describe('reading turns', () => {
  test('show prints a finished turn with its transcript; watch --json of it gives its entries and its result; list keeps a long id short', async () => {
    // An id near the longest allowed (256): show and --json give it whole, the table a short form.
    const turnId = uniqueTurnId(`cli-show-${'x'.repeat(200)}`);
    expect(
      (await cli({ args: ['run', '--model', 'quick', '--turn-id', turnId, '--detach'], env })).code,
    ).toBe(2);
    const detached = await cli({
      args: ['run', '--model', 'quick', '--turn-id', turnId, '--detach', 'echo twice'],
      env,
    });
    expect(detached).toMatchObject({ code: 0, stdout: `${turnId}\n` });
    const watched = await cli({ args: ['watch', turnId, '--json'], env });
    expect(watched.code).toBe(0);
    expect(jsonLines({ text: watched.stdout }).at(-1)).toMatchObject({ kind: 'result', status: 'completed' });
    // Its id again: refused, in commands (not the client API's words).
    const rerun = await cli({ args: ['run', '--model', 'quick', '--turn-id', turnId, 'echo twice'], env });
    expect(rerun.code).toBe(1);
    expect(rerun.stderr).toContain(
      `turn ${turnId} already exists, and a turn id runs once: \`durable-turns watch ${turnId}\``,
    );

    const shown = await cli({ args: ['show', turnId], env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      `turn ${turnId} completed\n41 tokens (30 in, 11 out) · 2 responses · 2 tool calls\n`,
    );
    expect(shown.stdout).toContain('assistant:\n    Echoing twice.\n    → echo #echo_a {text: "a"}\n');
    expect(shown.stdout).toContain('tool echo #echo_a ok:\n    echo: a\n');

    const listed = await cli({ args: ['list', '--status', 'completed', '--limit', '50', '--json'], env });
    expect(JSON.parse(listed.stdout).turns).toContainEqual(
      expect.objectContaining({ turnId, status: 'completed', model: 'quick', toolCalls: 2, tokens: 41 }),
    );
    const table = await cli({ args: ['list', '--status', 'completed', '--limit', '50'], env });
    expect(table.stdout).toMatch(
      /^TURN +STATUS +CONVERSATION +MODEL +STARTED \(UTC\) +TOOK +CALLS +TOKENS$/m,
    );
    const shortened = `${turnId.slice(0, 26)}…${turnId.slice(-13)}`;
    expect(table.stdout).toMatch(
      new RegExp(`^${shortened} +completed +- +quick +[\\d-]+ [\\d:]+ +.+ +2 +41$`, 'm'),
    );
    expect(table.stdout).not.toContain(turnId);
    // Eight CLI processes one after another (~13 s quiet, over 60 s in a loaded suite run): the
    // limit guards against a hang, it does not time the CLI.
  }, 240_000);
});

describe('fork', () => {
  test("fork --follow goes on from after response 1 with the source's model: the tool of response 1 does not run again, the model reads the edited output and the message; a point the turn does not have, an unknown call and a running source are refused (exit 1)", async () => {
    const from = uniqueTurnId('cli-fork-src');
    const source = await cli({ args: ['run', '--model', 'tally', '--turn-id', from, 'tally twice'], env });
    expect(source).toMatchObject({ code: 0, stdout: 'Done; the user last said: tally twice\n' });

    // No --model: the source's, from its workflow. No --turn-id: `<source>-fork-<random>`.
    const fork = await cli({
      args: [
        'fork',
        from,
        '--at',
        'after:1',
        '--output',
        'tally_1=edited one',
        '--message',
        'stop there',
        '--follow',
      ],
      env,
    });
    expect(fork.code).toBe(0);
    const [, forkId = ''] =
      /turn (\S+) forked from \S+ after response 1 \(model tally\)/.exec(fork.stderr) ?? [];
    expect(forkId).toMatch(new RegExp(`^${from}-fork-[0-9a-f]{6}$`));
    expect(fork.stderr).toContain(
      `forked from ${from} after response 1: its record (1 response, 1 call output) is kept`,
    );
    expect(fork.stderr).toContain('response 2: Read "edited one"; tallying two.');
    expect(fork.stdout).toBe('Done; the user last said: stop there\n');
    // Counted by the tool itself: the fork ran only the call after the fork point.
    const runs = readFileSync(path.join(gates, 'tally.log'), 'utf8').split('\n');
    expect(runs.filter((line) => line.startsWith(`${from} `))).toEqual([`${from} one`, `${from} two`]);
    expect(runs.filter((line) => line.startsWith(`${forkId} `))).toEqual([`${forkId} two`]);

    // A running source: on a queue no worker polls, it runs until terminated.
    const running = uniqueTurnId('cli-fork-running');
    await withUnpolledTurn({
      turnId: running,
      taskQueue: `cli-fork-${process.pid}`,
      run: async () => {
        const [past, unknownCall, unfinished] = await Promise.all([
          cli({ args: ['fork', from, '--at', 'after:4'], env }),
          cli({ args: ['fork', from, '--at', 'before:tally_9'], env }),
          cli({ args: ['fork', running, '--at', 'after:1'], env }),
        ]);
        expect(past).toMatchObject({ code: 1, stdout: '' });
        expect(past.stderr).toContain(
          `turn ${from} has 3 responses: there is no after response 4 (--at after:1 to after:3)`,
        );
        expect(unknownCall.code).toBe(1);
        expect(unknownCall.stderr).toContain(
          `cannot fork turn ${from}: the turn has no call "tally_9" to fork before`,
        );
        expect(unfinished.code).toBe(1);
        expect(unfinished.stderr).toContain(
          `turn ${running} is still running: a fork starts from a finished turn's record.`,
        );
      },
    });
  });
});

describe('errors name the problem and exit non-zero', () => {
  test('a malformed DURABLE_TURNS_ENCRYPTION_KEYS: stopped before connecting, with the expected format and never the key', async () => {
    const secret = 'c2hvcnQta2V5LWJ5dGVz';
    const run = await cli({ args: ['list'], env: { ...env, DURABLE_TURNS_ENCRYPTION_KEYS: `k0:${secret}` } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('key 1 of DURABLE_TURNS_ENCRYPTION_KEYS (id k0) is 15 bytes, not 32');
    expect(run.stderr).toContain('Expected DURABLE_TURNS_ENCRYPTION_KEYS=<id>:<base64 of 32 random bytes>');
    expect(run.stderr + run.stdout).not.toContain(secret);
  });

  test('an unknown turn id', async () => {
    const run = await cli({ args: ['show', 'no-such-turn'], env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`no turn no-such-turn in namespace ${testTemporal().namespace}`);
  });

  test('a server that is not there: the address is named, and the CLI gives up within its connect timeout', async () => {
    const port = await freePort();
    const started = await cli({ args: ['--help'] });
    const run = await cli({ args: ['--address', `127.0.0.1:${port}`, 'list'] });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach Temporal at 127.0.0.1:${port} (--address)`);
    // Starting the CLI costs what `--help` took; the connection may take its 5 s timeout on top.
    expect(run.ms).toBeLessThan(started.ms * 2 + 5_000);
  });

  test('a malformed flag value is a usage error (exit 2) naming the flag', async () => {
    const run = await cli({ args: ['run', '--model', 'quick', '--max-tool-calls', 'lots', 'hi'], env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--max-tool-calls: expected a positive whole number (got "lots")');
    const unknown = await cli({ args: ['run', '--model', 'quick', '--modle', 'x', 'hi'], env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("durable-turns: unknown option '--modle'");
    const status = await cli({ args: ['list', '--status', 'done'], env });
    expect(status.code).toBe(2);
    expect(status.stderr).toContain(
      '--status: expected one of running, completed, cancelled, budget_exhausted, loop_detected, failed (got "done")',
    );
    // With --json, a script reads it as one JSON document, like every other error.
    const asJson = await cli({ args: ['--json', 'run', '--model', 'quick', '--modle', 'x', 'hi'], env });
    expect(asJson.code).toBe(2);
    expect(JSON.parse(asJson.stdout)).toEqual({
      error: expect.stringContaining("unknown option '--modle'"),
      exitCode: 2,
    });
  });

  test('budget flags reach the turn: one tool call allowed for two, the turn ends budget_exhausted (exit 5)', async () => {
    const run = await cli({
      args: ['run', '--json', '--model', 'quick', '--max-tool-calls', '1', 'echo twice'],
      env,
    });
    expect(run.code).toBe(5);
    const lines = jsonLines({ text: run.stdout });
    expect(
      lines.find((l) => (l.entry as { type?: string } | undefined)?.type === 'turn.opened'),
    ).toMatchObject({
      entry: { config: { budget: { maxToolCalls: 1 } } },
    });
    expect(lines.at(-1)).toMatchObject({ kind: 'result', status: 'budget_exhausted' });
  });

  test('a model the worker does not have: the turn fails saying which models it has (exit 3)', async () => {
    const run = await cli({ args: ['run', '--model', 'no-such-model', 'hi'], env });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /failed: .*unknown model "no-such-model"; this worker has: quick, approval, slow, waves, broken, streaming, deploy-held, structured/,
    );
  });
});

/** `run --model approval` (its progress piped, or as JSON lines), once its deploy call waits for a decision. */
async function deployWaiting({
  turnId,
  json,
  model = 'approval',
}: {
  turnId: string;
  json: boolean;
  model?: string;
}): Promise<CliProcess> {
  const run = new CliProcess({
    args: ['run', ...(json ? ['--json'] : []), '--model', model, '--turn-id', turnId, 'deploy'],
    env,
  });
  await run.waitFor({
    pattern: json
      ? /"type":"tool.approval_requested","toolCallId":"deploy_prod"/
      : /deploy #deploy_prod \{target: "prod"\} waits for approval/,
    what: 'the approval was requested',
  });
  return run;
}

/** Visibility is eventually consistent: a turn shows in the list a moment after its search attributes change. */
async function waitForListed({ turnId }: { turnId: string }): Promise<Record<string, unknown>> {
  for (let tries = 0; ; tries++) {
    const listed = await cli({ args: ['list', '--waiting-for-approval', '--json'], env });
    const found = (JSON.parse(listed.stdout).turns as Record<string, unknown>[]).find(
      (t) => t.turnId === turnId,
    );
    if (found) return found;
    if (tries > 20)
      throw new Error(`turn ${turnId} never showed in list --waiting-for-approval: ${listed.stdout}`);
  }
}

describe('a turn no worker has picked up', () => {
  test('is running to `list --status running`; `show` says it waits for a worker at once; `cancel` says when it takes effect', async () => {
    const nobody = `cli-no-worker-${process.pid}`;
    const turnId = uniqueTurnId('cli-no-worker');
    await withUnpolledTurn({
      turnId,
      taskQueue: nobody,
      run: async () => {
        const listed = await cli({
          args: ['--task-queue', nobody, 'list', '--status', 'running', '--json'],
          env,
        });
        expect(listed.code).toBe(0);
        expect(JSON.parse(listed.stdout).turns).toEqual([
          expect.objectContaining({ turnId, status: 'running' }),
        ]);

        // A query would wait for a worker until its deadline (30 s) and then say DEADLINE_EXCEEDED.
        const shown = await cli({ args: ['show', turnId], env });
        expect(shown.code).toBe(0);
        expect(shown.stdout).toContain(
          `turn ${turnId} is waiting for a worker: none has picked it up on task queue ${nobody} yet`,
        );

        const cancelled = await cli({ args: ['cancel', turnId], env });
        expect(cancelled.code).toBe(0);
        expect(cancelled.stdout).toContain(
          `no worker has picked it up on task queue ${nobody} yet: it ends cancelled when one does`,
        );
      },
    });
  });
});

describe('conversations', () => {
  test('chat in a pseudo-terminal: a message starts a turn shown live, one typed while it runs steers it, /approve answers its call, /quit leaves it running', async () => {
    const id = uniqueTurnId('cli-chat');
    const chat = new CliProcess({
      args: ['chat', '--conversation', id, '--model', 'approval'],
      env,
      terminal: true,
    });
    try {
      await chat.waitFor({
        pattern: new RegExp(`conversation ${id} \\(model approval\\)`),
        what: 'the chat began',
      });
      chat.type('deploy please\r');
      await chat.waitFor({ pattern: new RegExp(`→ turn ${id}#1`), what: 'the message started a turn' });
      await chat.waitFor({
        pattern: /deploy #deploy_prod .*waits for approval/,
        what: 'the call waited for approval',
      });
      chat.type('and be careful\r');
      await chat.waitFor({
        pattern: new RegExp(`→ steered into ${id}#1`),
        what: 'the second message steered the turn',
      });
      chat.type('/approve deploy_prod\r');
      await chat.waitFor({
        pattern: /assistant: Deployed to prod\./,
        what: 'the turn went on to its answer',
      });
      // The steer is in the transcript, before the answer that read it.
      const shown = stripVTControlCharacters(chat.stdout);
      expect(shown.indexOf('steered (chat-')).toBeGreaterThan(-1);
      expect(shown.indexOf('steered (chat-')).toBeLessThan(shown.indexOf('assistant: Deployed to prod.'));
      chat.type('/quit\r');
      const run = await chat.done;
      expect(run.code).toBe(0);
      expect(stripVTControlCharacters(run.stdout)).toContain('left; the conversation goes on');
      // `show` knows the conversation: its turns in order, what was said and answered (once the
      // conversation has heard of its turn's end, a moment after the turn's result).
      let shownConversation = await cli({ args: ['show', id], env });
      while (shownConversation.stdout.includes('running'))
        shownConversation = await cli({ args: ['show', id], env });
      expect(shownConversation.code).toBe(0);
      expect(shownConversation.stdout).toContain(`conversation ${id}: 1 turn`);
      expect(shownConversation.stdout).toContain(`${id}#1 completed`);
      expect(shownConversation.stdout).toContain('user: deploy please');
      expect(shownConversation.stdout).toContain('assistant: Deployed to prod.');
    } finally {
      await chat.stop();
    }
  });

  test('send starts a turn and says which; a retry with its message id is the same message; reject names the running turn; enqueue says its place in line; list --conversations lists it, delete --yes deletes it', async () => {
    const id = uniqueTurnId('cli-conversation');
    const send = (args: string[]) => cli({ args: ['send', id, ...args, '--model', 'approval'], env });
    const { address, namespace } = testTemporal();
    const connection = await Connection.connect({ address });
    try {
      const first = await send(['deploy please', '--message-id', 'm1', '--json']);
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({
        conversationId: id,
        messageId: 'm1',
        status: 'started',
        turnId: `${id}#1`,
      });
      const retry = await send(['deploy please', '--message-id', 'm1', '--json']);
      expect(JSON.parse(retry.stdout)).toEqual(JSON.parse(first.stdout));
      const busy = await send(['and again', '--policy', 'reject']);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`conversation ${id} is running turn ${id}#1`);
      const queued = await send(['later', '--message-id', 'm3']);
      expect(queued.code).toBe(0);
      expect(queued.stdout).toContain('message m3 is queued: 1 turn ahead of it');
      const bad = await send(['x', '--policy', 'sometime']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--policy');
      // Without --model a message goes only to a conversation that exists.
      const joined = await cli({ args: ['send', id, 'also this', '--message-id', 'm4'], env });
      expect(joined.stdout).toContain('message m4 is queued: 2 turns ahead of it');
      const nowhere = await cli({ args: ['send', `${id}-none`, 'hello'], env });
      expect(nowhere.code).toBe(1);
      expect(nowhere.stderr).toContain(`no conversation ${id}-none: its first send says how its turns run`);

      const listed = await pollFor('the conversation in the list', async () => {
        const list = await cli({ args: ['list', '--conversations', '--conversation', id, '--json'], env });
        const { conversations } = JSON.parse(list.stdout) as { conversations: { conversationId: string }[] };
        return conversations.length > 0 ? conversations : undefined;
      });
      expect(listed).toEqual([expect.objectContaining({ conversationId: id, status: 'open' })]);
      const unsure = await cli({ args: ['delete', id], env });
      expect(unsure.code).toBe(2);
      expect(unsure.stderr).toContain('add --yes');
      // Its turn waits for an approval: the delete cancels it, then deletes it and the conversation.
      const deleted = await cli({ args: ['delete', id, '--yes', '--json'], env });
      expect(JSON.parse(deleted.stdout)).toEqual({ conversationId: id, deleted: true, turns: 1 });
    } finally {
      // The first turn waits for an approval nobody gives: close the conversation and stop it.
      const client = new TurnClient({ connection, namespace, taskQueue, blobStore: false });
      await new ConversationClient(client).close(id).catch(() => {});
      await client
        .attach(`${id}#1`)
        .cancel()
        .catch(() => {});
      await connection.close();
    }
    // Ten or more CLI processes one after another, and a delete that waits for the server to let go of
    // the ids: on a loaded machine over a minute (a clean-clone run hit the 60 s default).
  }, 180_000);

  test("branch --fork: a new conversation whose turn 1 forks the source's turn 1 after its first response, with the source's model; a point the turn does not have is refused in the flag's words (exit 1)", async () => {
    const id = uniqueTurnId('cli-branch');
    const first = await cli({ args: ['send', id, 'echo twice', '--model', 'quick', '--json'], env });
    expect(first.code).toBe(0);
    const ended = await cli({ args: ['watch', `${id}#1`, '--json'], env });
    expect(ended.code).toBe(0);
    const past = await cli({ args: ['branch', id, '--after', '0', '--fork', 'after:9'], env });
    expect(past.code).toBe(1);
    expect(past.stderr).toContain(
      `turn ${id}#1 has 2 responses: there is no after response 9 (--fork after:1 to after:2)`,
    );
    // Its echoes ran in the source's response 1: the fork asks only for response 2.
    const to = `${id}-f`;
    const branched = await cli({
      args: ['branch', id, '--after', '0', '--fork', 'after:1', '--to', to, '--json'],
      env,
    });
    expect(JSON.parse(branched.stdout)).toEqual({
      conversationId: to,
      origin: [{ conversationId: id, incarnation: expect.any(String), turns: 0 }],
      from: id,
      afterTurn: 0,
      model: 'quick',
    });
    await cli({ args: ['send', to, 'and then?'], env });
    const forkedTurn = await cli({ args: ['watch', `${to}#1`, '--json'], env });
    const lines = jsonLines({ text: forkedTurn.stdout });
    const entries = lines.flatMap((l) =>
      l.entry ? [l.entry as { type: string; responseIndex?: number }] : [],
    );
    expect(entries.map((e) => e.type)).toContain('turn.forked');
    expect(entries.filter((e) => e.type === 'model.requested').map((e) => e.responseIndex)).toEqual([1]);
    expect(lines.at(-1)).toMatchObject({
      kind: 'result',
      status: 'completed',
      text: 'Both echoes came back.',
    });
  });
});
