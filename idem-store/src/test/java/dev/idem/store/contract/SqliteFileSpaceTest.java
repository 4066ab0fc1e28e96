package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An SQLite file runs in incremental-vacuum mode, new or made before, and gives back to the file system what the
 * pruner deletes: under steady sending and pruning its size stops growing.
 */
class SqliteFileSpaceTest extends StoreTestBase {
    static final Duration RETENTION = Duration.ofDays(30);
    static final int ONE_SHOTS_A_CYCLE = 2_000;

    @TempDir
    static Path dir;

    @Override
    protected TestDatabase createDatabase() {
        return TestStores.sqliteDatabase(dir);
    }

    @Test
    void aNewFileRunsInIncrementalVacuumMode() throws SQLException {
        assertThat(pragma("auto_vacuum")).as("2 is INCREMENTAL").isEqualTo(2);
    }

    @Test
    void aFileMadeWithoutIncrementalVacuumIsRewrittenOnceOnOpenKeepingItsRows() throws SQLException {
        Schedule kept = schedule(tenant, clock.instant());
        store.close();
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("PRAGMA auto_vacuum = NONE");
            s.execute("VACUUM");
        }
        assertThat(pragma("auto_vacuum")).isZero();

        store = database.open(clock);
        assertThat(pragma("auto_vacuum")).isEqualTo(2);
        assertThat(store.inTransaction(
                        (dev.idem.core.store.StoreTx tx) -> tx.schedules().find(tenant, kept.id())))
                .isPresent();
    }

    @Test
    void theFileGivesBackWhatIsPrunedAndStopsGrowingAcrossPruneCycles() throws Exception {
        List<Long> pruned = new ArrayList<>();
        for (int cycle = 0; cycle < 5; cycle++) {
            deliverOneShots(ONE_SHOTS_A_CYCLE);
            clock.advance(RETENTION.plusDays(1));
            checkpoint();
            long before = fileSize();
            int deleted = pruneAll();
            while (store.queue().reclaimSpace(1024) == 1024) {}
            checkpoint();
            assertThat(deleted)
                    .as("deliveries, their attempts' owners and schedules")
                    .isEqualTo(2 * ONE_SHOTS_A_CYCLE);
            assertThat(pragma("freelist_count"))
                    .as("free pages left in the file")
                    .isZero();
            long after = fileSize();
            assertThat(after)
                    .as("cycle %d: the file shrinks by what was pruned", cycle)
                    .isLessThan(before);
            pruned.add(after);
        }
        assertThat(pruned.get(4))
                .as("the file's size after each prune: %s", pruned)
                .isLessThanOrEqualTo(pruned.get(1));
    }

    /** Creates {@code n} one-shots due now and delivers each once, successfully; their schedules complete. */
    void deliverOneShots(int n) {
        List<Schedule> schedules = new ArrayList<>();
        store.useTransaction(tx -> {
            for (int i = 0; i < n; i++) {
                Schedule s = newSchedule(tenant, clock.instant());
                tx.schedules().insert(s);
                tx.deliveries()
                        .insertIfAbsent(Delivery.scheduled(ids.next("dlv"), s, clock.instant(), 1, clock.instant()));
                schedules.add(s);
            }
        });
        DeliveryQueue q = store.queue();
        for (List<DeliveryQueue.Claim> claims = q.claimDue("n", Duration.ofMinutes(1), 500);
                !claims.isEmpty();
                claims = q.claimDue("n", Duration.ofMinutes(1), 500)) {
            List<Outcome> outcomes = new ArrayList<>();
            for (DeliveryQueue.Claim c : claims) {
                String id = c.delivery().id();
                Attempt a = new Attempt(ids.next("att"), id, 1, clock.instant(), 10, 200, null, null);
                outcomes.add(new Outcome(id, a, DeliveryStatus.SUCCEEDED, null, null));
            }
            q.complete("n", outcomes);
        }
        store.useTransaction(tx -> {
            for (Schedule s : schedules)
                tx.schedules()
                        .update(tx.schedules()
                                .find(tenant, s.id())
                                .orElseThrow()
                                .withStatus(ScheduleStatus.COMPLETED, null, clock.instant()));
        });
    }

    int pruneAll() {
        var cutoff = clock.instant().minus(RETENTION);
        int total = 0;
        for (int n; (n = store.queue().pruneFinished(cutoff, 500)) > 0; ) total += n;
        for (int n; (n = store.queue().pruneSettledSchedules(cutoff, 500)) > 0; ) total += n;
        return total;
    }

    long fileSize() throws IOException {
        return Files.size(dir.resolve("idem.db"));
    }

    /** What SQLite's automatic checkpoint does once the log holds 1,000 pages: copies the log's pages into the file. */
    void checkpoint() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("PRAGMA wal_checkpoint(PASSIVE)");
        }
    }

    long pragma(String name) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("PRAGMA " + name)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(database.config().jdbcUrl());
    }
}
