export * from './api-schemas';
export {
  type DashboardOptions,
  dashboardConfig,
  identityHeaderEnvVar,
  tokenEnvVar,
} from './dashboard-config';
export { dashboardServer } from './dashboard-server';
export { type RunningDashboard, startDashboard } from './start-dashboard';
export type { TurnWatchSource } from './turn-watch-source';
