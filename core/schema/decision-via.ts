import { z } from 'zod';

/** Where a decision (or a grant) was made, as the journal and the timeline show it. */
export const decisionViaSchema = z.enum(['api', 'cli', 'dashboard', 'chat', 'approver']);
export type DecisionVia = z.infer<typeof decisionViaSchema>;
