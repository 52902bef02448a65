import { describeEventLogContract, describeWithInfra } from '../contract/index.ts';
import { createKafkaEventLog } from './kafka-log.ts';

describeWithInfra('Kafka event log', ['KAFKA_BROKERS'], ({ KAFKA_BROKERS }) => {
  // Every contract test uses fresh topics and groups, created on first use with one partition.
  describeEventLogContract(
    'kafka',
    () => createKafkaEventLog({ brokers: KAFKA_BROKERS.split(','), clientId: 'mtc-contract', topics: [] }),
    { waitMs: 30_000 },
  );
});
