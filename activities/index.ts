export * from '../contract/activities';
export * from './create-activities';
export * from './transcript-cache';
