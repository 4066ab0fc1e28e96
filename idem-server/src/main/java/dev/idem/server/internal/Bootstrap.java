package dev.idem.server.internal;

import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Project;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import dev.idem.wire.SigningSecret;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First start on an empty store: project {@code default}, one API key per mode (shown once, {@link FirstStartKeys}
 * says where) and a signing secret per mode. A {@code --bootstrap-key} is the test-mode key; on a store that already exists, a
 * bootstrap key no key of the store has is added to project {@code default} in test mode (the project is created
 * if missing), so scripts can rely on it. A key the store holds (even revoked, even in another project) is left
 * as it is.
 */
public final class Bootstrap {
    private static final Logger log = LoggerFactory.getLogger(Bootstrap.class);
    public static final String DEFAULT_PROJECT = "default";

    private Bootstrap() {}

    public static void run(
            Store store,
            String bootstrapKey,
            Clock clock,
            RandomGenerator random,
            IdGenerator ids,
            FirstStartKeys keys) {
        if (bootstrapKey != null) ApiKeys.validateShape(bootstrapKey, Mode.TEST);
        List<String> printed;
        try {
            printed = store.inTransaction(tx -> createIfEmpty(tx, bootstrapKey, clock, random, ids));
        } catch (RuntimeException raced) {
            // another node bootstrapped the same empty database at the same moment; its keys stand
            if (store.inTransaction(tx -> tx.projects().findByName(DEFAULT_PROJECT))
                    .isEmpty()) throw raced;
            log.info("another node created the default project first");
            printed = List.of();
        }
        // after the commit: keys of a transaction that did not commit (another node's won) are never shown
        if (!printed.isEmpty()) keys.show(DEFAULT_PROJECT, clock.instant(), printed);
    }

    private static List<String> createIfEmpty(
            StoreTx tx, String bootstrapKey, Clock clock, RandomGenerator random, IdGenerator ids) {
        List<String> printed = new ArrayList<>();
        Optional<Project> existing = tx.projects().findByName(DEFAULT_PROJECT);
        if (existing.isPresent() || tx.projects().count() > 0) {
            // a bootstrap key the store does not hold is added to project default, created if missing
            if (bootstrapKey != null
                    && tx.apiKeys().findByHash(ApiKeys.hash(bootstrapKey)).isEmpty()) {
                Project project = existing.orElseGet(() -> {
                    log.info("created project 'default' for the bootstrap key (the store has other projects only)");
                    return createProject(tx, DEFAULT_PROJECT, clock, random, ids);
                });
                tx.apiKeys()
                        .insert(ApiKeys.adopt(new Tenant(project.id(), Mode.TEST), bootstrapKey, ids, clock.instant())
                                .stored());
                log.info("added the bootstrap key to project 'default' (test mode)");
            }
            return printed;
        }
        Project project = createProject(tx, DEFAULT_PROJECT, clock, random, ids);
        for (Mode mode : Mode.values()) {
            Tenant tenant = new Tenant(project.id(), mode);
            ApiKeys.Issued key = mode == Mode.TEST && bootstrapKey != null
                    ? ApiKeys.adopt(tenant, bootstrapKey, ids, clock.instant())
                    : ApiKeys.issue(tenant, random, ids, clock.instant());
            tx.apiKeys().insert(key.stored());
            printed.add(mode.wireName() + " key: " + key.secret());
        }
        return printed;
    }

    /** A new project with a signing secret per mode (every tenant signs from its first delivery). */
    public static Project createProject(StoreTx tx, String name, Clock clock, RandomGenerator random, IdGenerator ids) {
        Project project = new Project(ids.next("proj"), name, clock.instant());
        tx.projects().insert(project);
        for (Mode mode : Mode.values())
            tx.signingSecrets()
                    .save(new SigningSecrets(new Tenant(project.id(), mode), SigningSecret.generate(random)));
        return project;
    }
}
