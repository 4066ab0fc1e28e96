package dev.idem.engine.internal;

import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Signing secrets per tenant, kept for a second: one read per tenant per second instead of one per delivery,
 * while a rotation reaches the wire within a second.
 */
public final class SecretCache {
    private static final long TTL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private record Entry(Optional<SigningSecrets> secrets, long loadedAt) {}

    private final Store store;
    private final ConcurrentHashMap<Tenant, Entry> entries = new ConcurrentHashMap<>();

    public SecretCache(Store store) {
        this.store = store;
    }

    public Optional<SigningSecrets> get(Tenant tenant) {
        long now = System.nanoTime();
        Entry e = entries.get(tenant);
        if (e != null && now - e.loadedAt < TTL_NANOS) return e.secrets;
        Optional<SigningSecrets> loaded =
                store.inTransaction(tx -> tx.signingSecrets().find(tenant));
        entries.put(tenant, new Entry(loaded, now));
        return loaded;
    }
}
