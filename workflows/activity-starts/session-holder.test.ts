import { SessionHolder } from './session-holder';

test('a conversation’s first session call goes anywhere; the worker that ran it holds the sessions, and later calls go to it', () => {
  const holder = new SessionHolder(undefined);
  const first = holder.launch();
  expect(first).toEqual({ pinnedTo: undefined, epoch: 0, opened: [], holder: undefined });
  holder.ran({ epoch: first.epoch, ranOn: 'A', server: 'browser' });
  expect(holder.launch()).toMatchObject({ pinnedTo: 'A', opened: ['browser'], holder: 'A' });
  expect(holder.carried).toEqual({ queue: 'A', current: 'A', opened: ['browser'] });
});

test('a holder that did not take a call is dropped, but stays the current one until a call runs elsewhere', () => {
  const holder = new SessionHolder({ queue: 'A', current: 'A', opened: ['browser'] });
  holder.gone('A');
  // Sent anywhere; a worker other than A knows its session is not the current one.
  const rerun = holder.launch();
  expect(rerun).toMatchObject({ pinnedTo: undefined, holder: 'A' });
  holder.ran({ epoch: rerun.epoch, ranOn: 'B', server: 'browser' });
  expect(holder.launch()).toMatchObject({ pinnedTo: 'B', holder: 'B' });
});

test('an answer from a call launched before the holder changed does not move it back', () => {
  const holder = new SessionHolder({ queue: 'A', current: 'A', opened: ['browser'] });
  // A long call on A, then another that A did not take in time.
  const long = holder.launch();
  holder.gone('A');
  const rerun = holder.launch();
  holder.ran({ epoch: rerun.epoch, ranOn: 'B', server: 'browser' });
  // The long call ends on A after that.
  holder.ran({ epoch: long.epoch, ranOn: 'A', server: 'browser' });
  expect(holder.launch()).toMatchObject({ pinnedTo: 'B', holder: 'B' });
  expect(holder.carried).toEqual({ queue: 'B', current: 'B', opened: ['browser'] });
});

test('dropping a queue that is no longer the holder changes nothing', () => {
  const holder = new SessionHolder({ queue: 'B', current: 'B', opened: [] });
  holder.gone('A');
  expect(holder.launch()).toMatchObject({ pinnedTo: 'B', epoch: 0 });
});
