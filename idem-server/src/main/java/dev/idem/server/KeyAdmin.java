package dev.idem.server;

import dev.idem.core.ApiKey;
import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Project;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.server.internal.ApiKeys;
import dev.idem.server.internal.Bootstrap;
import dev.idem.store.JdbcStores;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Operator actions on API keys, straight on the store (the {@code idem keys} command): an operator with
 * access to the database is the admin, so no HTTP admin credential exists to leak. Keys are stored as
 * SHA-256 hashes and shown once; a revocation takes effect on the next request on every node.
 */
public final class KeyAdmin implements AutoCloseable {
    private final Store store;
    private final boolean ownsStore;
    private final Clock clock;
    private final RandomGenerator random;
    private final IdGenerator ids;

    public KeyAdmin(Store store, boolean ownsStore, Clock clock, RandomGenerator random) {
        this.store = store;
        this.ownsStore = ownsStore;
        this.clock = clock;
        this.random = random;
        this.ids = new IdGenerator(clock, random);
    }

    /**
     * Opens the store a node with {@code config} uses; it must exist (a node has run on it), so a key is never made
     * in a new, empty store that no node reads.
     *
     * @throws dev.idem.core.store.StoreNotFoundException when there is no store there
     */
    public static KeyAdmin open(ServerConfig config) {
        return open(config, null);
    }

    /** As {@link #open(ServerConfig)}, with the master keys a node uses ({@link IdemServer#start(ServerConfig, MasterKeys)}). */
    public static KeyAdmin open(ServerConfig config, dev.idem.store.MasterKeys masterKeys) {
        return new KeyAdmin(
                JdbcStores.openExisting(config.store().withMasterKeys(masterKeys), Clock.systemUTC()),
                true,
                Clock.systemUTC(),
                new SecureRandom());
    }

    /** A new key, shown once: its secret and its stored form. */
    public record NewKey(String secret, ApiKey key, Project project) {}

    /** Creates a key for {@code projectName} in {@code mode}, creating the project (with its signing secrets) if needed. */
    public NewKey create(String projectName, Mode mode) {
        if (projectName == null || !projectName.matches("[a-z0-9][a-z0-9_-]{0,62}"))
            throw new IllegalArgumentException(
                    "project names use 1 to 63 of a-z, 0-9, '_' and '-', starting with a letter or digit");
        return store.inTransaction(tx -> {
            Project project = tx.projects()
                    .findByName(projectName)
                    .orElseGet(() -> Bootstrap.createProject(tx, projectName, clock, random, ids));
            ApiKeys.Issued issued = ApiKeys.issue(new Tenant(project.id(), mode), random, ids, clock.instant());
            tx.apiKeys().insert(issued.stored());
            return new NewKey(issued.secret(), issued.stored(), project);
        });
    }

    /** The keys of a project, newest first (hashes and display prefixes only). */
    public List<ApiKey> list(String projectName) {
        return store.inTransaction(tx -> {
            Project p = tx.projects()
                    .findByName(projectName)
                    .orElseThrow(() -> new IllegalArgumentException("no project named '" + projectName + "'"));
            return tx.apiKeys().list(p.id());
        });
    }

    /** Revokes a key by id ({@code key_…}); false when unknown or already revoked. */
    public boolean revoke(String keyId) {
        return store.inTransaction(tx -> tx.apiKeys().revoke(keyId, clock.instant()));
    }

    @Override
    public void close() {
        if (ownsStore) store.close();
    }
}
