package ai.openalice.rl.dispatcher.messaging;

import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.servicekit.KafkaClients;
import ai.openalice.rl.servicekit.KafkaTopics;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Locale;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Keeps {@code tasks.accepted} what the replicas rely on: a compacted topic (created so, or switched
 * to compaction when a broker auto-created it), holding every task version — including the versions a
 * database from before tasks.accepted stored without announcing. Tries every 30 s until both are done.
 */
@ApplicationScoped
public class AcceptedTopic {
    private static final Logger LOG = Logger.getLogger(AcceptedTopic.class);

    @Inject
    TaskStore tasks;

    @Inject
    KafkaClients kafka;

    @ConfigProperty(name = "mp.messaging.outgoing.tasks-accepted-out.topic")
    String topic;

    private volatile boolean provisioned;
    private volatile boolean backfilled;

    @Scheduled(every = "30s", delayed = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void check() {
        if (!provisioned) {
            try {
                var outcome = KafkaTopics.ensure(kafka.connection(), Topic.TASKS_ACCEPTED, topic);
                LOG.infof("%s: %s", topic, outcome.name().toLowerCase(Locale.ROOT).replace('_', ' '));
                provisioned = true;
            } catch (Exception e) {
                LOG.warnf("%s: cannot check its compaction yet (%s); trying again in 30 s", topic, e.getMessage());
            }
        }
        if (!backfilled) {
            try {
                int n;
                int total = 0;
                while ((n = tasks.announceUnannounced(500)) > 0) {
                    total += n;
                }
                if (total > 0) {
                    LOG.infof("announced %d task version(s) stored before tasks.accepted", total);
                }
                backfilled = true;
            } catch (RuntimeException e) {
                LOG.warnf("cannot announce earlier task versions yet (%s); trying again in 30 s", e.getMessage());
            }
        }
    }
}
