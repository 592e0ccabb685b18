export * from './activity-types';
export * from './create-activities';
export * from './transcript-cache';
