import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repositoryRoot = resolve(__dirname, '../..');

/** The repository's copy of the recorded provider streams (a CI clone may have no `../shared`). */
export const fixtureDir = join(repositoryRoot, 'test/fixtures/provider-streams');

/**
 * Recordings added to the corpus here, for cases it lacks (Anthropic thinking followed by a
 * `tool_use`; a Responses `store: false` round trip with the client's next request recorded):
 * their own `SOURCES.md` says where each came from.
 */
export const addedFixtureDir = join(repositoryRoot, 'test/fixtures/provider-streams-added');

/** Where the corpus is kept, beside the repository; the copy above must match it byte for byte. */
export const sharedCorpusDir = resolve(repositoryRoot, '../shared/provider-streams');

/** The folders of the corpus: the API each recording speaks (`openai-compatible` speaks chat completions). */
export const providers = ['openai-chat', 'openai-responses', 'anthropic', 'openai-compatible'] as const;
export type Provider = (typeof providers)[number];

/** One recorded conversation: the bodies the provider sent for its first, second, … request. */
export interface Conversation {
  provider: Provider;
  name: string;
  /** `provider/name`, how tests and reports name it. */
  id: string;
  steps: Buffer[];
  /** The body a real client sent for each later step, where the recording kept it (step → JSON). */
  recordedRequests: Map<number, unknown>;
}

const stepFile = /^(?<name>.+?)(?:\.step(?<step>\d+))?\.sse$/;
const requestFile = /^(?<name>.+?)\.step(?<step>\d+)\.request\.json$/;

/** The shared corpus and the recordings added here. */
export function readWholeCorpus(): Conversation[] {
  return [...readCorpus(fixtureDir), ...readCorpus(addedFixtureDir)];
}

/** Every conversation of the corpus in `dir`, by provider then name; steps in order, none missing. */
export function readCorpus(dir: string = fixtureDir): Conversation[] {
  return providers.flatMap((provider) => {
    if (!existsSync(join(dir, provider))) return [];
    const byName = new Map<string, Map<number, Buffer>>();
    const requests = new Map<string, Map<number, unknown>>();
    for (const file of readdirSync(join(dir, provider)).sort()) {
      const request = requestFile.exec(file);
      if (request?.groups?.name) {
        const byStep = requests.get(request.groups.name) ?? new Map<number, unknown>();
        byStep.set(Number(request.groups.step), JSON.parse(readFileSync(join(dir, provider, file), 'utf8')));
        requests.set(request.groups.name, byStep);
        continue;
      }
      const match = stepFile.exec(file);
      if (!match?.groups?.name) continue;
      const step = Number(match.groups.step ?? 1);
      const steps = byName.get(match.groups.name) ?? new Map<number, Buffer>();
      steps.set(step, readFileSync(join(dir, provider, file)));
      byName.set(match.groups.name, steps);
    }
    return [...byName].map(([name, steps]) => {
      const ordered = [...steps.keys()].sort((a, b) => a - b);
      if (ordered.some((step, index) => step !== index + 1)) {
        throw new Error(`${provider}/${name}: recorded steps ${ordered.join(', ')} leave a gap`);
      }
      return {
        provider,
        name,
        id: `${provider}/${name}`,
        steps: ordered.map((step) => steps.get(step)!),
        recordedRequests: requests.get(name) ?? new Map(),
      };
    });
  });
}

/** Every file under `dir`, as paths relative to it, sorted. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}
