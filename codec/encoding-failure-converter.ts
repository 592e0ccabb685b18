import {
  ApplicationFailure,
  DefaultFailureConverter,
  type FailureConverter,
  type PayloadConverter,
  type ProtoFailure,
  type SerializationContext,
} from '@temporalio/common';
import { payloadKeyMissingType } from '../contract/activities';
import { PayloadKeyMissingError } from './payload-key-missing-error';

const encoding = new DefaultFailureConverter({ encodeCommonAttributes: true });
const clear = new DefaultFailureConverter({ encodeCommonAttributes: false });

/** The error, or one of its causes, says a key is missing (the SDK wraps an activity's as an ApplicationFailure of that type). */
function lacksKey(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth += 1)
    if (
      e instanceof PayloadKeyMissingError ||
      e.name === payloadKeyMissingType ||
      (e instanceof ApplicationFailure && e.type === payloadKeyMissingType)
    )
      return true;
  return false;
}

/**
 * Failures with their message and stack trace moved into an encoded payload, which the payload
 * codec then encrypts: an error message can carry what a tool read. One exception: a process that
 * lacks a key says so in the clear (the message names only the key id), or the operator who must
 * add the key could not read which. Loaded by path (`failureConverterPath`), as Temporal's data
 * converter requires.
 */
export const failureConverter: FailureConverter = {
  errorToFailure(
    err: unknown,
    payloadConverter: PayloadConverter,
    context?: SerializationContext,
  ): ProtoFailure {
    return (lacksKey(err) ? clear : encoding).errorToFailure(err, payloadConverter, context);
  },
  failureToError(
    failure: ProtoFailure,
    payloadConverter: PayloadConverter,
    context?: SerializationContext,
  ): Error {
    return encoding.failureToError(failure, payloadConverter, context);
  },
};
