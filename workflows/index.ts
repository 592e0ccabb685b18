// The workflow bundle's entry point: the worker registers workflows from this file.
export { turnWorkflow } from './turn-workflow';
