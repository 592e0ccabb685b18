import type { Client } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import { conversationWorkflowIdPrefix, conversationWorkflowType } from '../contract/conversation-workflow';
import { quoteVisibility } from './visibility-quote';

/** One conversation as Visibility lists it: no query of its workflow is made. */
export interface ConversationSummary {
  conversationId: string;
  /** `open` takes messages; `closed` was closed; any other is how its workflow ended (`terminated`, …). */
  status: 'open' | 'closed' | string;
  /** When its first message created it (its current run's start for conversations begun before this was kept). */
  startTime: Date;
  /** When it was closed (or its workflow ended). */
  closeTime?: Date;
}

export interface ConversationListFilters {
  /** Only conversations whose id starts with this. */
  search?: string;
  /** Only open (taking messages) or only closed ones. */
  status?: 'open' | 'closed';
}

/** The memo a conversation's workflow carries from its creation across continue-as-new. */
export interface ConversationMemo {
  startedAt?: string;
}

/**
 * One page of a task queue's conversations in Visibility's order (its latest run's start, newest
 * first: a conversation that continued as new moves up): their workflows' latest runs (the runs a
 * continue-as-new left behind are not conversations of their own).
 */
export async function listConversationPage({
  client,
  taskQueue,
  pageSize = 50,
  cursor,
  ...filters
}: ConversationListFilters & {
  client: Client;
  taskQueue: string;
  pageSize?: number;
  cursor?: string;
}): Promise<{ conversations: ConversationSummary[]; nextCursor?: string }> {
  const { namespace } = client.options;
  const response = await client.workflowService.listWorkflowExecutions({
    namespace,
    query: conversationListQuery({ taskQueue, ...filters }),
    pageSize,
    ...(cursor ? { nextPageToken: Buffer.from(cursor, 'base64url') } : {}),
  });
  const conversations: ConversationSummary[] = [];
  for (const raw of response.executions ?? []) {
    const converter = client.options.loadedDataConverter;
    // A memo sealed with keys this reader lacks (a dashboard without them) costs only the start time.
    const info = await executionInfoFromRaw(raw, converter, raw, namespace).catch(() =>
      executionInfoFromRaw({ ...raw, memo: null }, converter, raw, namespace),
    );
    const memo = (info.memo ?? {}) as ConversationMemo;
    const startedAt = memo.startedAt ? new Date(memo.startedAt) : undefined;
    const status = info.status.name;
    conversations.push({
      conversationId: info.workflowId.slice(conversationWorkflowIdPrefix.length),
      status: status === 'RUNNING' ? 'open' : status === 'COMPLETED' ? 'closed' : status.toLowerCase(),
      startTime: startedAt && !Number.isNaN(startedAt.getTime()) ? startedAt : info.startTime,
      ...(info.closeTime ? { closeTime: info.closeTime } : {}),
    });
  }
  const token = response.nextPageToken;
  return {
    conversations,
    ...(token && token.length > 0 ? { nextCursor: Buffer.from(token).toString('base64url') } : {}),
  };
}

function conversationListQuery({
  taskQueue,
  search,
  status,
}: ConversationListFilters & { taskQueue: string }): string {
  const clauses = [
    `WorkflowType = '${conversationWorkflowType}'`,
    `TaskQueue = '${quoteVisibility(taskQueue)}'`,
    `ExecutionStatus != 'ContinuedAsNew'`,
    `WorkflowId STARTS_WITH '${quoteVisibility(`${conversationWorkflowIdPrefix}${search ?? ''}`)}'`,
  ];
  if (status === 'open') clauses.push(`ExecutionStatus = 'Running'`);
  if (status === 'closed') clauses.push(`ExecutionStatus != 'Running'`);
  return clauses.join(' AND ');
}
