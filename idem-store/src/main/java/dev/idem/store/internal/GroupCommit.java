package dev.idem.store.internal;

import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreTx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The store's group commit: one writer thread per store runs the grouped work of concurrent callers in one
 * transaction, so a burst of small writes (an ingested event, a schedule created, a message sent) pays one BEGIN, one
 * COMMIT and one wait for the log's flush between them instead of one each.
 *
 * <p><b>Forming a group.</b> The writer takes the oldest waiting work and, without waiting, whatever else is queued
 * behind it, up to {@link #MAX_GROUP}. There is no timer: a lone caller's work starts as soon as the writer hands it
 * over (microseconds), and under load a group is what arrived while the previous group's transaction ran.
 *
 * <p><b>Answers.</b> Each caller gets its own work's result, returned only after the group's COMMIT succeeded, or its
 * own exception. When one work throws, the group's transaction is rolled back (so nothing of it is written) and
 * every work of the group runs again in a transaction of its own, in order: each then gets exactly what it would
 * have got alone, and one caller's failure never fails a neighbour. When BEGIN or COMMIT fails, every caller of the
 * group gets that failure (a transient {@link StoreException} that the API answers 503, or {@link
 * dev.idem.core.store.CommitOutcomeUnknownException} when a lost COMMIT's outcome cannot be told); none was told
 * anything before.
 *
 * <p><b>Statements.</b> The works' inserts that can wait (request keys and dedup reservations, messages, schedules,
 * deliveries) are held and written as one multi-row statement per table before the COMMIT ({@link GroupedInserts});
 * a work whose held reservation turns out taken is run again alone, after its neighbours committed without it. The
 * lookups that every send repeats (its event type, application and endpoints) are read once per group ({@link
 * Sql#queryPerGroup}), so a group of sends costs a few statements, not a few per send.
 *
 * <p><b>On SQLite</b>, which has one writer, this is also how callers share it: they queue here instead of on the
 * write lock, and the writer takes the lock once per group.
 */
final class GroupCommit implements AutoCloseable {
    /** The most works in one transaction: bounds a transaction's length and a caller's wait behind a group. */
    static final int MAX_GROUP = 128;

    private final Transactions transactions;
    private final Function<Sql, JdbcTx> txs;
    private final DueSignal signal;
    private final BlockingQueue<Item<?>> queue = new LinkedBlockingQueue<>();
    private final Thread writer;
    private final LongAdder groups = new LongAdder();
    private final LongAdder works = new LongAdder();
    private final LongAdder regrouped = new LongAdder();
    private volatile boolean closed;
    /** Runs in each group's transaction after its works and before its COMMIT: a test's failure there. */
    private volatile Runnable beforeCommitForTests = () -> {};

    GroupCommit(Transactions transactions, Function<Sql, JdbcTx> txs, DueSignal signal) {
        this.transactions = transactions;
        this.txs = txs;
        this.signal = signal;
        this.writer = new Thread(this::loop, "idem-group-commit");
        writer.setDaemon(true);
        writer.start();
    }

    /** One caller's work, and what became of it. */
    private static final class Item<T> {
        final Function<StoreTx, T> work;
        private final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        T result;
        Throwable failure;

        Item(Function<StoreTx, T> work) {
            this.work = work;
        }

        void finish(T value, Throwable t) {
            result = value;
            failure = t;
            done.countDown();
        }

        T await() {
            boolean interrupted = false;
            // an answer must wait for the outcome: a caller that left early could not say whether its work committed
            while (true) {
                try {
                    done.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
            if (failure instanceof RuntimeException r) throw r;
            if (failure instanceof Error e) throw e;
            if (failure != null) throw new StoreException("grouped transaction failed: " + failure, failure, false);
            return result;
        }
    }

    /** Thrown out of a group's transaction to roll it back when one of its works failed. */
    private static final class WorkFailed extends RuntimeException {
        WorkFailed() {
            super(null, null, false, false);
        }
    }

    /** Runs {@code work} in the next group's transaction and returns its result once that transaction committed. */
    <T> T run(Function<StoreTx, T> work) {
        if (Thread.currentThread() == writer)
            throw new IllegalStateException("grouped work cannot wait for another group: it runs inside one");
        if (Transactions.writing())
            // the group might need what this thread's transaction holds (SQLite's write lock, a row's lock on
            // PostgreSQL) while this thread waits for the group
            throw new IllegalStateException("store transactions do not nest: this thread is already inside one");
        Item<T> item = new Item<>(work);
        queue.add(item);
        if (closed && queue.remove(item)) throw new StoreException("the store is closed", null, false);
        return item.await();
    }

    private void loop() {
        List<Item<?>> group = new ArrayList<>(MAX_GROUP);
        while (true) {
            try {
                Item<?> first = queue.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (closed && queue.isEmpty()) return;
                    continue;
                }
                group.add(first);
                queue.drainTo(group, MAX_GROUP - 1);
                runGroup(group);
            } catch (InterruptedException e) {
                if (closed) return;
            } catch (Throwable t) {
                // runGroup answers every caller itself; this only keeps the writer alive whatever happens
                for (Item<?> i : group) if (i.done.getCount() > 0) i.finish(null, t);
            } finally {
                group.clear();
            }
        }
    }

    private void runGroup(List<Item<?>> group) {
        groups.increment();
        works.add(group.size());
        runGroup(group, 1);
    }

    /**
     * Runs {@code group} in one transaction. A work that fails, or a held insert that fails, rolls it back and runs
     * every work alone; works whose held dedup reservations were lost ({@link GroupedInserts}) roll it back too, and
     * then the others run again as a group ({@code regroups} more times at most, else alone) and the lost ones alone,
     * after them, where each reads its reservation's holder.
     */
    private void runGroup(List<Item<?>> group, int regroups) {
        Object[] results = new Object[group.size()];
        JdbcTx[] tx = new JdbcTx[1];
        try {
            transactions.write(
                    sql -> {
                        GroupedInserts held = new GroupedInserts();
                        sql.holdInserts(held);
                        tx[0] = txs.apply(sql);
                        for (int i = 0; i < group.size(); i++) {
                            held.owner(i);
                            try {
                                results[i] = group.get(i).work.apply(tx[0]);
                            } catch (RuntimeException | Error e) {
                                throw new WorkFailed();
                            }
                        }
                        try {
                            sql.flushHeld();
                        } catch (RuntimeException e) {
                            throw new WorkFailed();
                        }
                        sql.holdInserts(null);
                        java.util.BitSet lost = held.lost();
                        if (!lost.isEmpty()) throw new ReservationsLost(lost);
                        beforeCommitForTests.run();
                        return null;
                    },
                    true);
        } catch (WorkFailed rolledBack) {
            regrouped.increment();
            for (Item<?> i : group) alone(i);
            return;
        } catch (ReservationsLost r) {
            regrouped.increment();
            List<Item<?>> rest = new ArrayList<>(group.size());
            List<Item<?>> lostWorks = new ArrayList<>();
            for (int i = 0; i < group.size(); i++) (r.lost.get(i) ? lostWorks : rest).add(group.get(i));
            if (regroups > 0 && !rest.isEmpty()) runGroup(rest, regroups - 1);
            else for (Item<?> i : rest) alone(i);
            for (Item<?> i : lostWorks) alone(i);
            return;
        } catch (Throwable t) {
            for (Item<?> i : group) i.finish(null, t);
            return;
        }
        if (tx[0].signalled()) signal.afterCommit();
        for (int i = 0; i < group.size(); i++) finish(group.get(i), results[i]);
    }

    /** Thrown out of a group's transaction to roll it back when some of its works lost a held reservation. */
    private static final class ReservationsLost extends RuntimeException {
        final java.util.BitSet lost;

        ReservationsLost(java.util.BitSet lost) {
            super(null, null, false, false);
            this.lost = lost;
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void finish(Item<T> item, Object result) {
        item.finish((T) result, null);
    }

    /** {@code item} in a transaction of its own, as {@link JdbcStore#inTransaction} runs work. */
    private <T> void alone(Item<T> item) {
        JdbcTx[] tx = new JdbcTx[1];
        T result;
        try {
            result = transactions.write(
                    sql -> {
                        tx[0] = txs.apply(sql);
                        return item.work.apply(tx[0]);
                    },
                    true);
        } catch (Throwable t) {
            item.finish(null, t);
            return;
        }
        if (tx[0].signalled()) signal.afterCommit();
        item.finish(result, null);
    }

    /** Groups run, works run in them, and groups rolled back and run again work by work, since the start. */
    long[] counts() {
        return new long[] {groups.sum(), works.sum(), regrouped.sum()};
    }

    /** Works waiting for the writer now. */
    int queued() {
        return queue.size();
    }

    /** For tests: {@code hook} runs in every group's transaction after its works, before its COMMIT. */
    void beforeCommitForTests(Runnable hook) {
        beforeCommitForTests = hook == null ? () -> {} : hook;
    }

    /** Refuses new work, lets the writer finish what is queued, and waits for it. */
    @Override
    public void close() {
        closed = true;
        try {
            writer.join(java.util.concurrent.TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
