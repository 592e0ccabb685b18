import { z } from 'zod';
import { type ListedToolset, listedToolset } from '../schema/listed-toolset';
import { defineTool } from './define-tool';
import { type PinToolset, type ToolLister, TurnToolsets, turnToolsets } from './listed-tools';

const own = defineTool({ name: 'own', description: 'own', input: z.object({}), execute: () => 'own' });

/** A lister whose servers list `names` now (each a tool of server `s`), counting its lists. */
function lister(initial: string[]) {
  let names = initial;
  const made: string[] = [];
  const listOf = (tools: string[]) =>
    listedToolset([{ name: 's', tools: tools.map((name) => ({ name, inputSchema: { type: 'object' } })) }]);
  const source = {
    listed: listOf(initial),
    lists: 0,
    list: async () => {
      source.lists += 1;
      return listOf(names);
    },
    toolsOf: (toolset: ListedToolset) => {
      made.push(toolset.digest);
      return toolset.servers.flatMap((server) =>
        server.tools.map((tool) =>
          defineTool({
            name: `s_${tool.name}`,
            description: tool.name,
            input: z.object({}),
            execute: () => tool.name,
          }),
        ),
      );
    },
    change(next: string[]) {
      names = next;
    },
    made,
  } satisfies ToolLister & Record<string, unknown>;
  return source;
}

/** The turn's side of the pin (a workflow's update handler): the first offer wins. */
function turnPin(): PinToolset & { offers: number } {
  let pinned: ListedToolset | undefined;
  const pin = async (offered: ListedToolset) => {
    pin.offers += 1;
    pinned ??= offered;
    return pinned.digest === offered.digest
      ? { digest: pinned.digest }
      : { digest: pinned.digest, toolset: pinned };
  };
  pin.offers = 0;
  return pin;
}

const names = (registry: { names(): string[] }) => registry.names();

test("a turn's first look lists the servers and pins what they list; its later looks list nothing", async () => {
  const servers = lister(['a']);
  const toolsets = new TurnToolsets([own], servers);
  const pin = turnPin();

  expect(names(await toolsets.registryFor('t1', pin))).toEqual(['own', 's_a']);
  servers.change(['a', 'b']);
  expect(names(await toolsets.registryFor('t1', pin))).toEqual(['own', 's_a']);
  expect({ lists: servers.lists, offers: pin.offers }).toEqual({ lists: 1, offers: 1 });

  // Another turn begins with what the servers list now.
  expect(names(await toolsets.registryFor('t2', turnPin()))).toEqual(['own', 's_a', 's_b']);
});

test('a host that offers another list (another worker, or one whose servers changed) gets the pinned one back', async () => {
  const pin = turnPin();
  const first = lister(['a']);
  await new TurnToolsets([own], first).registryFor('t1', pin);

  const elsewhere = lister(['a', 'b']);
  const registry = await new TurnToolsets([own], elsewhere).registryFor('t1', pin);

  expect(names(registry)).toEqual(['own', 's_a']);
  expect(elsewhere.made).toEqual([first.listed.digest]);
});

test('tools are made once per list, however many turns pin it', async () => {
  const servers = lister(['a']);
  const toolsets = new TurnToolsets([own], servers);
  const registries = await Promise.all(
    ['t1', 't2', 't3'].map((turn) => toolsets.registryFor(turn, turnPin())),
  );
  expect(new Set(registries).size).toBe(1);
  expect(servers.made).toHaveLength(1);
});

test("a host whose own tool shares a name with a server's fails when it is made, naming the tool", () => {
  const clash = defineTool({ name: 's_a', description: 'mine', input: z.object({}), execute: () => 'mine' });
  expect(() => turnToolsets({ own: [clash], lister: lister(['a']) })).toThrow('two tools are named "s_a"');
});

test("a wave's calls asking at once on one host share one offer", async () => {
  const servers = lister(['a']);
  const toolsets = new TurnToolsets([own], servers);
  const pin = turnPin();
  const registries = await Promise.all([1, 2, 3].map(() => toolsets.registryFor('t1', pin)));
  expect(new Set(registries).size).toBe(1);
  expect({ lists: servers.lists, offers: pin.offers }).toEqual({ lists: 1, offers: 1 });
});
