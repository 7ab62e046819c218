package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.model.Terms;
import ai.openalice.rl.dispatcher.repository.SchedulerStore;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.servicekit.Sql;
import com.fasterxml.jackson.core.JsonProcessingException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import org.jboss.logging.Logger;

/**
 * The terms in force (see {@link Terms}), kept in {@code dispatcher.scheduler} with the version
 * that stated them so that every dispatcher replica and a restarted one follow the same: the
 * scheduling pass re-reads them, a checkpoint that states newer ones replaces them.
 */
@ApplicationScoped
public class TrainerTerms {
    private static final Logger LOG = Logger.getLogger(TrainerTerms.class);

    @Inject
    DispatcherConfig config;

    @Inject
    SchedulerStore store;

    private volatile Terms current;

    /** The dispatcher's own settings. */
    Terms own() {
        return Terms.own(config.sampling().temperature(), config.compactFilter(), config.maxStaleness(), config.pace().groupsPerVersion());
    }

    /** The terms as last read (the dispatcher's own before the first read). */
    public Terms current() {
        Terms t = current;
        return t == null ? own() : t;
    }

    /** Reads the terms in force. */
    public Terms refresh(Sql sql) {
        String json = store.storedTerms(sql).orElse(null);
        try {
            var stated = json == null ? null : EventCodec.mapper().readValue(json, CheckpointPublished.Terms.class);
            current = own().following(stated);
        } catch (IOException | IllegalArgumentException e) {
            LOG.warnf("the stored trainer terms %s are unreadable (%s); the dispatcher's own settings apply", json, e.getMessage());
            current = own();
        }
        return current;
    }

    /** Adopts the terms a checkpoint states, unless a newer version already stated others; returns the terms in force. */
    public Terms adopt(Sql sql, CheckpointPublished c) {
        if (c.terms() != null) {
            try {
                store.storeTerms(sql, EventCodec.mapper().writeValueAsString(c.terms()), c.policyVersion());
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        Terms before = current();
        Terms now = refresh(sql);
        if (!now.equals(before)) {
            LOG.infof("following the trainer's terms of v%d: %s", c.policyVersion(), now);
        }
        return now;
    }
}
