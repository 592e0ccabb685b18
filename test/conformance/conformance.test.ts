import { inProcessHarness } from './in-process-harness';
import { conformanceSuite } from './suite';

conformanceSuite(inProcessHarness);
