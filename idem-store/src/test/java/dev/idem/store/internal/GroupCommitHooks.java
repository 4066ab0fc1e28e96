package dev.idem.store.internal;

import dev.idem.core.store.Store;

/** Test access to a JDBC store's group commit from other packages' tests. */
public final class GroupCommitHooks {
    private GroupCommitHooks() {}

    /** Runs {@code hook} in every group's transaction of {@code store} after its works, before COMMIT (null: none). */
    public static void beforeCommit(Store store, Runnable hook) {
        jdbc(store).groupCommit().beforeCommitForTests(hook);
    }

    /** Groups run, works run in them, groups run again work by work after one failed; since the store opened. */
    public static long[] counts(Store store) {
        return jdbc(store).groupCommit().counts();
    }

    /** Works waiting for {@code store}'s writer now. */
    public static int queued(Store store) {
        return jdbc(store).groupCommit().queued();
    }

    private static JdbcStore jdbc(Store store) {
        return (JdbcStore) dev.idem.store.testing.TestStores.unwrap(store);
    }
}
