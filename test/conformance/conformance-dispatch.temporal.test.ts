import { conformanceSuite } from './suite';
import { closeTemporalHarness, openTemporalHarness, temporalHarness } from './temporal-harness';

beforeAll(openTemporalHarness);
afterAll(closeTemporalHarness);

conformanceSuite(temporalHarness, ['dispatch']);
