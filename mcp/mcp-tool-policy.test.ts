import { mcpToolPolicy } from './mcp-tool-policy';

const readOnly = { readOnlyHint: true };

test("a trusted server's hints set policy: read-only runs beside others and may re-run; destructive asks", () => {
  expect(
    mcpToolPolicy({ annotations: readOnly, trusted: true, defaults: undefined, overrides: undefined }),
  ).toEqual({
    concurrencySafe: true,
    retrySafe: true,
    requiresApproval: false,
  });
  expect(
    mcpToolPolicy({
      annotations: { destructiveHint: false, idempotentHint: true },
      trusted: true,
      defaults: undefined,
      overrides: undefined,
    }),
  ).toEqual({ concurrencySafe: false, retrySafe: true, requiresApproval: false });
});

test('missing hints take the spec defaults: not read-only, destructive, not idempotent', () => {
  expect(
    mcpToolPolicy({ annotations: undefined, trusted: true, defaults: undefined, overrides: undefined }),
  ).toEqual({
    concurrencySafe: false,
    retrySafe: false,
    requiresApproval: true,
  });
});

test("an untrusted server's hints are ignored, and configuration wins over hints: the tool's own over the server's defaults", () => {
  expect(
    mcpToolPolicy({ annotations: readOnly, trusted: false, defaults: undefined, overrides: undefined }),
  ).toEqual({
    concurrencySafe: false,
    retrySafe: false,
    requiresApproval: true,
  });
  expect(
    mcpToolPolicy({
      annotations: readOnly,
      trusted: false,
      defaults: { requiresApproval: false, concurrencySafe: true },
      overrides: { concurrencySafe: false },
    }),
  ).toEqual({ concurrencySafe: false, retrySafe: false, requiresApproval: false });
});
