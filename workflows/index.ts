// The workflow bundle's entry point: the worker registers workflows from this file.
export { fleetHealthWorkflow } from './fleet-health-workflow';
export { turnWorkflow } from './turn-workflow';
