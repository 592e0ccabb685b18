/** One sample of a Prometheus text exposition: `name{labels} value`. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text format (version 0.0.4); a line it cannot read is an error, not skipped. */
export function parsePrometheusText(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    const [, name = '', rawLabels = '', rawValue = ''] = match;
    const labels: Record<string, string> = {};
    for (const [, key = '', value = ''] of rawLabels.matchAll(labelPair))
      labels[key] = value.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    samples.push({ name, labels, value: Number(rawValue) });
  }
  return samples;
}

/**
 * The value of the one sample named `name` whose labels include `labels` (undefined when none
 * matches; an error when several do, since the caller then did not say which it meant).
 */
export function sampleValue(
  samples: readonly PromSample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const matching = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (matching.length > 1)
    throw new Error(
      `${matching.length} samples of ${name} match ${JSON.stringify(labels)}: name every label`,
    );
  return matching[0]?.value;
}

/** Every distinct value of one label among the samples of `name`. */
export function labelValues(samples: readonly PromSample[], name: string, label: string): string[] {
  return [...new Set(samples.filter((s) => s.name === name).map((s) => s.labels[label] ?? ''))].sort();
}
