/** Long model names are cut: the summary is stored in history with every request. */
const modelChars = 64;

/**
 * What a model request's activity shows in the Temporal Web UI instead of a bare `callModel`: the
 * response, numbered from 1 as the CLI and the dashboard number it (`responseIndex` + 1), the
 * model, and the attempt when it is a retry, e.g. `response 4 gpt-4.1 (attempt 2)`.
 */
export function modelSummary({
  responseIndex,
  model,
  attempt,
}: {
  responseIndex: number;
  model: string;
  attempt?: number;
}): string {
  const name = model.length > modelChars ? `${model.slice(0, modelChars - 1)}…` : model;
  return `response ${responseIndex + 1} ${name}${attempt !== undefined && attempt > 1 ? ` (attempt ${attempt})` : ''}`;
}
