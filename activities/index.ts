export * from './activity-types';
export * from './create-activities';
