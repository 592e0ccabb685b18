// The assembler is host-independent and lives in core/ (the in-process executor's `watch` uses it too).
export { channelText, LiveTextAssembler } from '../core/watch/live-text-assembler';
