import { describeCountersContract, describeWithInfra, uniqueName } from '../contract/index.ts';
import { createRedisCounters } from './redis-counters.ts';

describeWithInfra('Redis counters', ['REDIS_URL'], ({ REDIS_URL }) => {
  // A fresh key prefix per store, so tests and earlier runs never share counts.
  describeCountersContract('redis', () => createRedisCounters({ url: REDIS_URL, prefix: `${uniqueName('test')}:` }));
});
