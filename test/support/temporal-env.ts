/**
 * The Temporal server the tests share: started by test/global-setup.ts (or the one the user named
 * with TEMPORAL_ADDRESS) and passed to test files through the environment.
 */
export function testTemporal(): { address: string; namespace: string } {
  const address = process.env.TEMPORAL_ADDRESS?.trim();
  if (!address) {
    throw new Error(
      'TEMPORAL_ADDRESS is not set, so this test has no Temporal server. test/global-setup.ts starts one ' +
        'and sets it: run the tests with jest from the repository root (npx jest), whose config runs that ' +
        'setup, or set TEMPORAL_ADDRESS to a running server (host:port).',
    );
  }
  return { address, namespace: process.env.TEMPORAL_NAMESPACE?.trim() || 'default' };
}
