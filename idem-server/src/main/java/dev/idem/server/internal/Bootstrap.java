package dev.idem.server.internal;

import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Project;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import dev.idem.wire.SigningSecret;
import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First start on an empty store: project {@code default}, one API key per mode (printed once) and a
 * signing secret per mode. A {@code --bootstrap-key} is the test-mode key; given again on a later start
 * it is added to the default project if no key has that value yet, so scripts can rely on it.
 */
public final class Bootstrap {
    private static final Logger log = LoggerFactory.getLogger(Bootstrap.class);
    public static final String DEFAULT_PROJECT = "default";

    private Bootstrap() {}

    public static void run(Store store, String bootstrapKey, Clock clock, RandomGenerator random, IdGenerator ids, PrintStream out) {
        if (bootstrapKey != null) ApiKeys.validateShape(bootstrapKey, Mode.TEST);
        List<String> printed;
        try {
            printed = store.inTransaction(tx -> createIfEmpty(tx, bootstrapKey, clock, random, ids));
        } catch (RuntimeException raced) {
            // another node bootstrapped the same empty database at the same moment; its keys stand
            if (store.inTransaction(tx -> tx.projects().findByName(DEFAULT_PROJECT)).isEmpty()) throw raced;
            log.info("another node created the default project first");
            printed = List.of();
        }
        if (!printed.isEmpty()) {
            out.println("Created project 'default'. These API keys are shown once; store them now:");
            printed.forEach(line -> out.println("  " + line));
            out.flush();
        }
    }

    private static List<String> createIfEmpty(StoreTx tx, String bootstrapKey, Clock clock, RandomGenerator random, IdGenerator ids) {
        List<String> printed = new ArrayList<>();
        Optional<Project> existing = tx.projects().findByName(DEFAULT_PROJECT);
        if (existing.isPresent() || tx.projects().count() > 0) {
            if (bootstrapKey != null && existing.isPresent()
                    && tx.apiKeys().findByHash(ApiKeys.hash(bootstrapKey)).isEmpty()) {
                Tenant t = new Tenant(existing.get().id(), Mode.TEST);
                tx.apiKeys().insert(ApiKeys.adopt(t, bootstrapKey, ids, clock.instant()).stored());
                log.info("added the bootstrap key to project 'default' (test mode)");
            }
            return printed;
        }
        Project project = new Project(ids.next("proj"), DEFAULT_PROJECT, clock.instant());
        tx.projects().insert(project);
        for (Mode mode : Mode.values()) {
            Tenant tenant = new Tenant(project.id(), mode);
            ApiKeys.Issued key = mode == Mode.TEST && bootstrapKey != null
                    ? ApiKeys.adopt(tenant, bootstrapKey, ids, clock.instant())
                    : ApiKeys.issue(tenant, random, ids, clock.instant());
            tx.apiKeys().insert(key.stored());
            tx.signingSecrets().save(new SigningSecrets(tenant, SigningSecret.generate(random), null, null));
            printed.add(mode.wireName() + " key: " + key.secret());
        }
        return printed;
    }
}
