package dev.idem.engine;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.store.Store;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.Engines;
import dev.idem.engine.testing.ParkingReceiver;
import dev.idem.engine.testing.ParkingReceiver.Answer;
import dev.idem.engine.testing.World;
import dev.idem.store.StoreConfig;
import dev.idem.store.testing.TestStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upgrading a store written before destinations became endpoint URLs (schema version 11, the last before the
 * migration that clears every schedule's destination key): its schedules and due deliveries go out after the upgrade,
 * and the reaper fills their keys in again.
 */
class SqliteUpgradeTest {
    /** The last schema version before destination keys became endpoint URLs. */
    private static final String BEFORE_URL_KEYS = "11";

    @TempDir
    Path dir;

    private final Clock clock = Clock.systemUTC();

    @Test
    void deliveriesDueInAStoreFromBeforeUrlKeysGoOutOnceAfterTheUpgradeAndTheirKeysAreFilledIn() throws Exception {
        try (ParkingReceiver r = new ParkingReceiver(new Answer(Duration.ZERO))) {
            // the rows as version 11 has columns for them, written by today's store into a database of its own
            List<Delivery> due;
            StoreConfig today = StoreConfig.sqlite(dir.resolve("today"));
            try (Store store = TestStores.sqlite(dir.resolve("today"), clock)) {
                due = new World(store, clock).createMany(Defs.once(r.url("/hook"), clock.instant()), 3);
            }
            StoreConfig old = StoreConfig.sqlite(dir.resolve("old"));
            java.nio.file.Files.createDirectories(dir.resolve("old"));
            Flyway.configure()
                    .dataSource(old.jdbcUrl(), null, null)
                    .locations("classpath:db/migration/sqlite")
                    .target(BEFORE_URL_KEYS)
                    .load()
                    .migrate();
            try (Connection from = DriverManager.getConnection(today.jdbcUrl());
                    Connection to = DriverManager.getConnection(old.jdbcUrl())) {
                for (String table : List.of("projects", "schedules", "deliveries")) copy(table, from, to);
            }

            try (Store store = TestStores.sqlite(dir.resolve("old"), clock);
                    Engine engine = new Engine(
                            store, Engines.fast("node-a"), clock, new SplittableRandom(3), new SimpleMeterRegistry())) {
                World w = new World(store, clock); // the signing secret, which today's store keeps sealed
                assertThat(count(old, "SELECT COUNT(*) FROM schedules WHERE destination IS NULL"))
                        .as("the upgrade cleared the keys")
                        .isEqualTo(3);
                engine.start();
                engine.wakeUp();
                await().atMost(30, SECONDS)
                        .until(() ->
                                due.stream().allMatch(d -> w.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));
                for (Delivery d : due)
                    assertThat(r.requestsFor(d.id()))
                            .as("requests for %s", d.id())
                            .isEqualTo(1);
                await().atMost(30, SECONDS)
                        .until(() -> count(old, "SELECT COUNT(*) FROM schedules WHERE destination IS NULL") == 0);
            }
        }
    }

    /** Copies every row of {@code table}, in the columns the older schema has. */
    private static void copy(String table, Connection from, Connection to) throws SQLException {
        List<String> columns = new ArrayList<>();
        try (ResultSet rs = to.createStatement().executeQuery("PRAGMA table_info(" + table + ")")) {
            while (rs.next()) columns.add(rs.getString("name"));
        }
        String list = String.join(", ", columns);
        String marks = String.join(", ", columns.stream().map(c -> "?").toList());
        try (ResultSet rs = from.createStatement().executeQuery("SELECT " + list + " FROM " + table);
                PreparedStatement insert =
                        to.prepareStatement("INSERT INTO " + table + " (" + list + ") VALUES (" + marks + ")")) {
            while (rs.next()) {
                for (int i = 1; i <= columns.size(); i++) insert.setObject(i, rs.getObject(i));
                insert.executeUpdate();
            }
        }
    }

    private static long count(StoreConfig db, String query) throws SQLException {
        try (Connection c = DriverManager.getConnection(db.jdbcUrl());
                ResultSet rs = c.createStatement().executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
