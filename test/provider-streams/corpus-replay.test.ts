import { readWholeCorpus } from './corpus';
import { describeCorpusReplay } from './describe-corpus-replay';
import { describeReasoningCarriedBack, describeRequestsAsRecorded } from './describe-reasoning-carried-back';
import { inProcessHost } from './turn-hosts';

/**
 * Every recorded provider conversation, replayed byte for byte over real HTTP to the in-process
 * executor through the public API, held to what a correct consumer must see in its recording.
 */
const conversations = readWholeCorpus();
const runOf = describeCorpusReplay({ conversations, host: inProcessHost, hostName: 'in process' });

describeReasoningCarriedBack({
  title: 'in process, reasoning goes back to the provider with its metadata, as the provider requires',
  conversations,
  runOf,
});

describeRequestsAsRecorded({
  title: 'in process, each follow-up request carries the response back as the recorded client’s did',
  conversations,
  runOf,
});
