package dev.idem.server;

import dev.idem.core.store.Store;
import dev.idem.store.JdbcStores;
import dev.idem.store.MasterKeys;
import dev.idem.store.Resealing;
import java.time.Clock;
import java.util.function.BiConsumer;

/**
 * {@code idem keys master status|rewrap}: what each master key seals in a store, and moving it all under the primary,
 * on the store a node uses, while nodes keep running.
 */
public final class MasterKeyAdmin implements AutoCloseable {
    private final Store store;

    private MasterKeyAdmin(Store store) {
        this.store = store;
    }

    /**
     * Opens the existing store of {@code config} with {@code keys} (null: the embedded store's own keyset). Opening
     * refuses a keyset that lacks a key id in use, as a node does.
     *
     * @throws dev.idem.core.store.StoreNotFoundException when there is no store there
     */
    public static MasterKeyAdmin open(ServerConfig config, MasterKeys keys) {
        Store store = JdbcStores.openExisting(config.store().withMasterKeys(keys), Clock.systemUTC());
        return new MasterKeyAdmin(store);
    }

    /** How many values of each secret column each key id seals. */
    public Resealing.Census census() {
        return JdbcStores.resealing(store).census();
    }

    /** Re-seals under the primary key every value another key sealed, telling {@code progress} after each batch. */
    public Resealing.Outcome rewrap(BiConsumer<String, Long> progress) {
        return JdbcStores.resealing(store).rewrap(progress);
    }

    /** The keyset the store was opened with (given, or the embedded store's own). */
    public MasterKeys keys() {
        return JdbcStores.resealing(store).keys();
    }

    @Override
    public void close() {
        store.close();
    }
}
