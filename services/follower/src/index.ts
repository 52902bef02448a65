export {
  createFollower,
  DEFAULT_FOLLOWER_OPTIONS,
  type Follower,
  type FollowerDeps,
  type FollowerOptions,
} from './follower.ts';
