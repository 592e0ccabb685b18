import { z } from 'zod';

export const turnStatusSchema = z.enum([
  'completed',
  'cancelled',
  'budget_exhausted',
  'loop_detected',
  'failed',
]);
export type TurnStatus = z.infer<typeof turnStatusSchema>;

/** Why a turn stopped before the model was done. */
export const haltReasonSchema = z.enum(['cancelled', 'budget_exhausted', 'loop_detected']);
export type HaltReason = z.infer<typeof haltReasonSchema>;
