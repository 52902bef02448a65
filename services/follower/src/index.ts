export {
  createFollower,
  DEFAULT_FOLLOWER_OPTIONS,
  FollowerHalt,
  type Follower,
  type FollowerDeps,
  type FollowerMetrics,
  type FollowerOptions,
} from './follower.ts';
export { followerMetrics, type FollowerGauges } from './metrics.ts';
