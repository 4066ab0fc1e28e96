package dev.idem.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The JDBC inbox on one database: the claim shares the handler's transaction. */
public abstract class JdbcInboxContract extends ProcessSharedInboxContract {
    static final String EFFECTS = "idem_receiver_effects";

    /** The test database, pooled; one per test class. */
    protected abstract DataSource dataSource();

    protected abstract String jdbcUrl();

    /** Starts a test class from empty tables, so repeated local runs do not pile rows up. */
    static void resetTables(DataSource ds) {
        TestDatabases.exec(
                ds,
                "DROP TABLE IF EXISTS idem_inbox",
                "DROP TABLE IF EXISTS " + EFFECTS,
                "DROP TABLE IF EXISTS idem_receiver_seq");
    }

    @BeforeEach
    void createEffectsTable() {
        TestDatabases.exec(
                dataSource(),
                "CREATE TABLE IF NOT EXISTS " + EFFECTS + " (idem_key VARCHAR(255) NOT NULL, note VARCHAR(64))");
    }

    @Override
    protected Inbox newInbox(Duration lease) {
        return jdbc(lease);
    }

    protected JdbcInbox jdbc(Duration lease) {
        return JdbcInbox.builder(dataSource()).clock(clock).claimLease(lease).build();
    }

    @Override
    protected String childStoreSpec() {
        return jdbcUrl();
    }

    private static void effect(Connection tx, String key, String note) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + EFFECTS + " (idem_key, note) VALUES (?, ?)")) {
            ps.setString(1, key);
            ps.setString(2, note);
            ps.executeUpdate();
        }
    }

    private long effects(String key) {
        return TestDatabases.count(dataSource(), "SELECT COUNT(*) FROM " + EFFECTS + " WHERE idem_key = '" + key + "'");
    }

    private long inboxRows(String key) {
        return TestDatabases.count(dataSource(), "SELECT COUNT(*) FROM idem_inbox WHERE idem_key = '" + key + "'");
    }

    @Test
    void theHandlersWritesAndTheClaimCommitTogetherAndADuplicateDoesNotCallTheHandler() throws Exception {
        String k = key("tx");
        AtomicInteger calls = new AtomicInteger();
        Outcome first = jdbc(shortLease()).process(k, tx -> {
            calls.incrementAndGet();
            effect(tx, k, "first");
            return "{\"ok\":1}";
        });
        Outcome again = jdbc(shortLease()).process(k, tx -> {
            calls.incrementAndGet();
            effect(tx, k, "second");
            return "never";
        });
        assertThat(first.status()).isEqualTo(Outcome.Status.PROCESSED);
        assertThat(again.status()).isEqualTo(Outcome.Status.DUPLICATE);
        assertThat(again.result()).isEqualTo("{\"ok\":1}");
        assertThat(calls).hasValue(1);
        assertThat(effects(k)).isEqualTo(1);
    }

    @Test
    void aHandlerThatThrowsRollsBackItsWritesAndLeavesNoClaimSoTheRedeliveryDoesTheWork() throws Exception {
        String k = key("tx-throws");
        assertThatThrownBy(() -> jdbc(shortLease()).process(k, tx -> {
                    effect(tx, k, "lost");
                    throw new SQLException("handler failed half way");
                }))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("half way");
        assertThat(effects(k)).isZero();
        assertThat(inboxRows(k)).isZero();

        Outcome redelivery = jdbc(shortLease()).process(k, tx -> {
            effect(tx, k, "kept");
            return null;
        });
        assertThat(redelivery.status()).isEqualTo(Outcome.Status.PROCESSED);
        assertThat(effects(k)).isEqualTo(1);
    }

    @Test
    void aConcurrentDuplicateWaitsForTheFirstDeliverysTransactionAndIsThenADuplicate() throws Exception {
        assertConcurrentDuplicate(false);
    }

    @Test
    void aConcurrentDuplicateOfADeliveryThatRollsBackDoesTheWorkItself() throws Exception {
        assertConcurrentDuplicate(true);
    }

    private void assertConcurrentDuplicate(boolean firstFails) throws Exception {
        String k = key(firstFails ? "race-rollback" : "race");
        java.util.concurrent.CountDownLatch inHandler = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger secondCalls = new AtomicInteger();
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            Future<Outcome> first = two.submit(() -> jdbc(shortLease()).process(k, tx -> {
                effect(tx, k, "first");
                inHandler.countDown();
                release.await();
                if (firstFails) throw new IllegalStateException("first delivery fails");
                return "first";
            }));
            inHandler.await();
            Future<Outcome> second = two.submit(() -> jdbc(shortLease()).process(k, tx -> {
                secondCalls.incrementAndGet();
                effect(tx, k, "second");
                return "second";
            }));
            Thread.sleep(300);
            assertThat(second.isDone())
                    .as("the duplicate waits on the first one's claim")
                    .isFalse();
            release.countDown();
            if (firstFails) {
                assertThatThrownBy(first::get).hasRootCauseMessage("first delivery fails");
                assertThat(second.get().status()).isEqualTo(Outcome.Status.PROCESSED);
                assertThat(secondCalls).hasValue(1);
            } else {
                assertThat(first.get().status()).isEqualTo(Outcome.Status.PROCESSED);
                assertThat(second.get().status()).isEqualTo(Outcome.Status.DUPLICATE);
                assertThat(second.get().result()).isEqualTo("first");
                assertThat(secondCalls).hasValue(0);
            }
            assertThat(effects(k)).isEqualTo(1);
        } finally {
            release.countDown();
            two.shutdownNow();
        }
    }

    @Test
    void transactionalProcessingAnswersInProgressForALiveClaimAndTakesOverAnExpiredOne() throws Exception {
        String k = key("tx-takeover");
        ClaimAttempt stalled = jdbc(shortLease()).claim(k, shortLease());
        assertThat(stalled.granted()).isTrue();
        assertThat(jdbc(shortLease()).process(k, tx -> "never").status()).isEqualTo(Outcome.Status.IN_PROGRESS);
        clock.advance(shortLease().plusSeconds(1));
        Outcome taken = jdbc(shortLease()).process(k, tx -> {
            effect(tx, k, "taken over");
            return "tx";
        });
        assertThat(taken.status()).isEqualTo(Outcome.Status.PROCESSED);
        assertThatThrownBy(() -> stalled.claim().complete("late")).isInstanceOf(ClaimLostException.class);
        assertThat(effects(k)).isEqualTo(1);
    }

    @Test
    void aThousandKeysWithDuplicatesInTransactionsFromSixteenThreadsAtTwoInstancesCommitOneEffectEach()
            throws Exception {
        JdbcInbox[] instances = {jdbc(shortLease()), jdbc(shortLease())};
        String run = UUID.randomUUID().toString().substring(0, 8);
        int keys = 1000;
        List<String> deliveries = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            String k = "txload-" + run + "-" + i;
            deliveries.add(k);
            if (i % 3 == 0) deliveries.add(k); // a third of the keys twice, adjacent so they race
        }
        ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(deliveries);
        AtomicInteger processed = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            JdbcInbox inbox = instances[t % 2];
            done.add(pool.submit(() -> {
                for (String k; (k = queue.poll()) != null; ) {
                    String key = k;
                    Outcome o = inbox.process(key, tx -> {
                        effect(tx, key, "load");
                        return null;
                    });
                    (o.status() == Outcome.Status.PROCESSED ? processed : duplicates).incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> f : done) f.get();
        pool.shutdown();
        String like = " WHERE idem_key LIKE 'txload-" + run + "-%'";
        assertThat(TestDatabases.count(dataSource(), "SELECT COUNT(*) FROM " + EFFECTS + like))
                .isEqualTo(keys);
        assertThat(TestDatabases.count(dataSource(), "SELECT COUNT(DISTINCT idem_key) FROM " + EFFECTS + like))
                .isEqualTo(keys);
        assertThat(processed).hasValue(keys);
        assertThat(duplicates).hasValue(deliveries.size() - keys);
    }

    @Test
    void theSequenceGuardAppliesOnlyNewerSequencesAndRollsBackWithTheHandler() throws Exception {
        SequenceGuard guard = SequenceGuard.create(dataSource(), "idem_receiver_seq");
        String resource = "sch_" + UUID.randomUUID();
        List<Boolean> applied = new ArrayList<>();
        for (long seq : new long[] {5, 3, 5, 7}) {
            jdbc(shortLease()).process(key("seq"), tx -> {
                applied.add(guard.advance(tx, resource, seq));
                return null;
            });
        }
        assertThat(applied).containsExactly(true, false, false, true);
        assertThatThrownBy(() -> jdbc(shortLease()).process(key("seq"), tx -> {
                    assertThat(guard.advance(tx, resource, 9)).isTrue();
                    throw new IllegalStateException("handler failed after advancing");
                }))
                .isInstanceOf(IllegalStateException.class);
        jdbc(shortLease()).process(key("seq"), tx -> {
            applied.add(guard.advance(tx, resource, 8));
            return null;
        });
        assertThat(applied).last().isEqualTo(true);
    }

    @Test
    void aSecondInstanceOnAnExistingTableStartsCleanly() {
        assertThat(jdbc(shortLease()).table()).isEqualTo("idem_inbox");
        assertThat(jdbc(shortLease()).table()).isEqualTo("idem_inbox");
    }
}
