import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Tiny checks against the local broker, built on kafka-clients only (the console tools live in
 * kafka-tools, which the broker classpath does not carry).
 *
 * <pre>
 *   KafkaCheck ready BOOTSTRAP CLUSTER_ID TIMEOUT_SECONDS [BROKER_PID [SCRAM_USER SCRAM_PASSWORD]]
 *       retries describeCluster until node 1 answers with the expected cluster id; then, with a
 *       user, sets its SCRAM-SHA-256 and SCRAM-SHA-512 credentials (a data dir formatted without
 *       them gets them here; an existing one gets the password again)
 *   KafkaCheck smoke BOOTSTRAP
 *       creates a scratch topic, produces one record, consumes it with a group, deletes the topic
 * </pre>
 */
public final class KafkaCheck {
    public static void main(String[] args) throws Exception {
        if (args.length >= 4 && args[0].equals("ready")) {
            long pid = args.length > 4 ? Long.parseLong(args[4]) : -1;
            int status = ready(args[1], args[2], Integer.parseInt(args[3]), pid);
            if (status == 0 && args.length == 7) status = scram(args[1], args[5], args[6]);
            System.exit(status);
        } else if (args.length == 2 && args[0].equals("smoke")) {
            smoke(args[1]);
        } else {
            System.err.println("usage: KafkaCheck ready BOOTSTRAP CLUSTER_ID TIMEOUT_SECONDS [PID [USER PASSWORD]] | smoke BOOTSTRAP");
            System.exit(2);
        }
    }

    private static Properties adminProps(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        return p;
    }

    private static int ready(String bootstrap, String clusterId, int timeoutSeconds, long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        String last = "no answer yet";
        try (Admin admin = Admin.create(adminProps(bootstrap))) {
            while (System.nanoTime() < deadline) {
                if (pid > 0 && !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    System.err.println("broker process " + pid + " exited");
                    return 1;
                }
                try {
                    DescribeClusterResult r = admin.describeCluster();
                    String id = r.clusterId().get(3, TimeUnit.SECONDS);
                    Collection<Node> nodes = r.nodes().get(3, TimeUnit.SECONDS);
                    admin.listTopics().names().get(3, TimeUnit.SECONDS);
                    if (!clusterId.equals(id)) {
                        last = "cluster id " + id + " != expected " + clusterId + " (another broker on this port?)";
                    } else if (nodes.stream().noneMatch(n -> n.id() == 1)) {
                        last = "node 1 not listed yet: " + nodes;
                    } else {
                        System.out.println("kafka ready: cluster " + id + ", nodes " + nodes);
                        return 0;
                    }
                } catch (Exception e) {
                    last = e.toString();
                }
                Thread.sleep(250);
            }
        }
        System.err.println("kafka not ready after " + timeoutSeconds + "s: " + last);
        return 1;
    }

    /**
     * Upserts the user's SCRAM credentials (both mechanisms) through the controller's metadata, one
     * request per mechanism (a request may alter a user only once).
     */
    private static int scram(String bootstrap, String user, String password) throws InterruptedException {
        try (Admin admin = Admin.create(adminProps(bootstrap))) {
            for (ScramMechanism mechanism : List.of(ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512)) {
                admin.alterUserScramCredentials(List.of(
                        new UserScramCredentialUpsertion(user, new ScramCredentialInfo(mechanism, 8192), password)))
                        .all().get(10, TimeUnit.SECONDS);
            }
            System.out.println("kafka scram: credentials of " + user + " set (SCRAM-SHA-256, SCRAM-SHA-512)");
            return 0;
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            System.err.println("kafka scram: setting the credentials of " + user + " failed: " + e);
            return 1;
        }
    }

    private static void smoke(String bootstrap) throws Exception {
        String topic = "infra-smoke-" + UUID.randomUUID();
        String value = "hello " + System.currentTimeMillis();
        try (Admin admin = Admin.create(adminProps(bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(10, TimeUnit.SECONDS);
            System.out.println("created topic " + topic);
            try {
                Properties pp = new Properties();
                pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
                pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
                    RecordMetadata md = producer.send(new ProducerRecord<>(topic, "k", value)).get(10, TimeUnit.SECONDS);
                    System.out.println("produced '" + value + "' at " + md.topic() + "-" + md.partition() + "@" + md.offset());
                }

                Properties cp = new Properties();
                cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                cp.put(ConsumerConfig.GROUP_ID_CONFIG, topic + "-group");
                cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
                cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
                try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
                    consumer.subscribe(Set.of(topic));
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (System.nanoTime() < deadline) {
                        for (ConsumerRecord<String, String> rec : consumer.poll(Duration.ofMillis(500))) {
                            if (value.equals(rec.value())) {
                                consumer.commitSync();
                                System.out.println("consumed '" + rec.value() + "' with group " + topic + "-group");
                                return;
                            }
                        }
                    }
                    throw new IllegalStateException("record not consumed within 30s");
                }
            } finally {
                // The group goes first: once its topic is gone the broker may drop the empty group by itself.
                try {
                    admin.deleteConsumerGroups(List.of(topic + "-group")).all().get(10, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
                }
                admin.deleteTopics(List.of(topic)).all().get(10, TimeUnit.SECONDS);
            }
        }
    }
}
