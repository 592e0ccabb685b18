/**
 * Dynamic config that lets the dev server hand out tasks as soon as they exist. Its history
 * service reads each task queue (transfer: new workflow and activity tasks; timer: durable sleeps,
 * retry backoffs, approval timeouts; visibility: what list queries see) at most 20 times a second
 * by default, so every dispatch waits for the next 50 ms tick: a sequential activity costs ~97 ms
 * on a small machine instead of ~14 ms. One process serves every shard here, so the per-host cap
 * is raised with the per-shard one.
 *
 * On a real cluster these are the same settings; raising them makes each history host poll its
 * queues up to 1,000 times a second per shard when there is work, which costs database reads on a
 * busy cluster. Tune them there with the cluster's operators, not by copying these.
 *
 * The queues also write down how far they have got every 30 s by default, and a deleted workflow is
 * removed only once its close has been written down so: its id stays taken up to 30 s after the
 * delete (`ConversationClient.delete` waits for that). Here they write it down every second.
 */
export const fastQueueReaderConfig: Readonly<Record<string, number | string>> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'history.transferProcessorMaxPollHostRPS': 1000,
  'history.timerProcessorMaxPollRPS': 1000,
  'history.timerProcessorMaxPollHostRPS': 1000,
  'history.visibilityProcessorMaxPollRPS': 1000,
  'history.visibilityProcessorMaxPollHostRPS': 1000,
  'history.transferProcessorUpdateAckInterval': '1s',
  'history.visibilityProcessorUpdateAckInterval': '1s',
};
