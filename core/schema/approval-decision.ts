import { z } from 'zod';
import { approvalSignatureFields, argumentMatcherSchema, grantIdSchema } from './approval-grant';
import { type DecisionVia, decisionViaSchema } from './decision-via';

export { type DecisionVia, decisionViaSchema } from './decision-via';

/** The most an operator's answer in place of a tool (`respond`) may hold: it is kept in the journal and sent to the model. */
export const maxRespondChars = 64 * 1024;

/**
 * What a person decides about a call that waits for approval:
 * - `approve` runs it, with `input` in place of the model's arguments when the approver edited them
 *   (checked against the tool's argument schema before anything runs; the model's call stays as it
 *   made it, and the output says which arguments ran and who edited them);
 * - `reject` does not run it: its output is an error that quotes `reason`;
 * - `respond` does not run it: `output` (the approver's text) is the call's output, as if the tool answered.
 *
 * `by` names the approver (from the client, the CLI's user, the dashboard's user): kept in the
 * journal with the decision and shown on the timeline. It is the caller's word: a turn that must
 * not trust it signs its decisions.
 */
export const approvalDecisionObjectSchema = z.object({
  toolCallId: z.string().min(1),
  decision: z.enum(['approve', 'reject', 'respond']),
  reason: z.string().max(2_000).optional(),
  /** `approve` only: the arguments to run instead of the model's. */
  input: z.unknown().optional(),
  /** `respond` only (and required there): the call's output. */
  output: z.string().max(maxRespondChars).optional(),
  by: z.string().min(1).max(200).optional(),
  via: decisionViaSchema.optional(),
  /**
   * `approve` only: "always allow" — also let the tool's later calls run without asking, for the rest
   * of the turn or of the conversation, optionally only those whose arguments match (see `ApprovalGrant`).
   */
  remember: z
    .object({
      scope: z.enum(['turn', 'conversation']).default('turn'),
      match: z.array(argumentMatcherSchema).max(20).default([]),
      /** Default: `<turn id>/<call id>`. */
      grantId: grantIdSchema.optional(),
    })
    .optional(),
  ...approvalSignatureFields,
});

/**
 * A decision as callers send it. The form before decisions could edit or respond —
 * `{ toolCallId, approved, reason }` — is still taken (clients and pages of earlier releases send it).
 */
export const approvalDecisionSchema = z.preprocess(
  legacyDecision,
  approvalDecisionObjectSchema.superRefine((d, ctx) => {
    if (d.input !== undefined && d.decision !== 'approve')
      ctx.addIssue({ code: 'custom', path: ['input'], message: 'edited arguments go with approve only' });
    if (d.remember !== undefined && d.decision !== 'approve')
      ctx.addIssue({ code: 'custom', path: ['remember'], message: 'a grant goes with approve only' });
    if (d.decision === 'respond' && d.output === undefined)
      ctx.addIssue({ code: 'custom', path: ['output'], message: 'respond needs the output the model reads' });
    if (d.decision !== 'respond' && d.output !== undefined)
      ctx.addIssue({ code: 'custom', path: ['output'], message: 'an output goes with respond only' });
  }),
);
export type ApprovalDecision = z.infer<typeof approvalDecisionObjectSchema>;
export type ApprovalDecisionInput = z.input<typeof approvalDecisionObjectSchema> | LegacyDecision;

/** The earlier form: a yes or no and a reason. */
export interface LegacyDecision {
  toolCallId: string;
  approved: boolean;
  reason?: string;
  by?: string;
  via?: DecisionVia;
}

function legacyDecision(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || 'decision' in value || !('approved' in value))
    return value;
  const { approved, ...rest } = value as { approved: unknown };
  return typeof approved === 'boolean' ? { ...rest, decision: approved ? 'approve' : 'reject' } : value;
}

/** Whether the call runs after this decision. */
export const approves = (decision: Pick<ApprovalDecision, 'decision'>): boolean =>
  decision.decision === 'approve';
