package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Mode;
import dev.idem.core.Source;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import dev.idem.store.JdbcStores;
import dev.idem.store.MasterKeyFile;
import dev.idem.store.MasterKeys;
import dev.idem.store.Resealing;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idem keys master rewrap} as a real process (the fat jar) on PostgreSQL, killed with SIGKILL in the middle: every
 * value still opens (some under the old key, some under the new), and a second run finishes the job.
 */
class MasterKeyRewrapIT {
    private static final int SOURCES = 3_000;

    @TempDir
    Path dir;

    @Test
    void aRewrapKilledMidwayLeavesEverySecretOpenableAndASecondRunFinishesIt() throws Exception {
        SecureRandom random = new SecureRandom();
        MasterKeys old = MasterKeys.generate(random, Instant.now());
        MasterKeys both = MasterKeys.parse(old.toJson(), "old").withNewPrimary(random, Instant.now());
        Path keyset = dir.resolve("keys.json");
        MasterKeyFile.writeNew(keyset, both);
        Tenant tenant = new Tenant("proj_1", Mode.TEST);
        try (TestDatabase db = TestStores.postgresDatabase()) {
            try (Store store = JdbcStores.open(db.config().withMasterKeys(old), Clock.systemUTC())) {
                for (int batch = 0; batch < SOURCES / 1_000; batch++) {
                    int from = batch * 1_000;
                    store.useTransaction(tx -> {
                        for (int i = from; i < from + 1_000; i++) tx.sources().insert(source(tenant, i));
                    });
                }
            }
            List<String> args = NodeProcess.javaCommand(
                    "-jar",
                    NodeProcess.JAR.toString(),
                    "keys",
                    "master",
                    "rewrap",
                    "--database-url",
                    db.config().jdbcUrl(),
                    "--master-key-file",
                    keyset.toString());
            Map<String, String> env =
                    Map.of("IDEM_DATABASE_USER", String.valueOf(db.config().user()));

            NodeProcess first = NodeProcess.start(args, dir.resolve("logs"), 0, "", env, Path.of(""));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> Files.readString(first.stdout).contains("re-sealed"));
            first.process.destroyForcibly(); // SIGKILL
            assertThat(first.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.readString(first.stdout)).doesNotContain("done:");

            try (Store store = JdbcStores.open(db.config().withMasterKeys(both), Clock.systemUTC())) {
                Map<String, Long> counts =
                        JdbcStores.resealing(store).census().byColumn().get("sources.secret");
                assertThat(counts.get(old.primaryId()))
                        .as("left under the old key")
                        .isPositive();
                assertThat(counts.get(both.primaryId()))
                        .as("re-sealed before the kill")
                        .isPositive();
                assertThat(counts.values().stream().mapToLong(Long::longValue).sum())
                        .isEqualTo(SOURCES);
                assertEverySecretOpens(store);
            }

            NodeProcess second = NodeProcess.start(args, dir.resolve("logs"), 0, "", env, Path.of(""));
            assertThat(second.process.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(second.process.exitValue())
                    .as(Files.readString(second.stderr))
                    .isZero();
            assertThat(Files.readString(second.stdout)).contains(", 0 not under " + both.primaryId());

            try (Store store = JdbcStores.open(db.config().withMasterKeys(both), Clock.systemUTC())) {
                Resealing.Census census = JdbcStores.resealing(store).census();
                assertThat(census.keyIds()).containsExactly(both.primaryId());
                assertEverySecretOpens(store);
            }
        }
    }

    private static void assertEverySecretOpens(Store store) {
        store.inReadTransaction((StoreTx tx) -> {
            for (int i = 0; i < SOURCES; i++)
                assertThat(tx.sources().findForIngest(id(i)).orElseThrow().secret())
                        .isEqualTo("provider-secret-" + i);
            return null;
        });
    }

    private static String id(int i) {
        return String.format("src_%06d", i);
    }

    /** A provider source of {@code tenant} whose secret is {@code provider-secret-<i>}. */
    static Source source(Tenant tenant, int i) {
        Instant t = Instant.parse("2030-01-01T00:00:00Z");
        return new Source(
                id(i),
                tenant,
                "s" + i,
                "hmac_sha256",
                "provider-secret-" + i,
                List.of(),
                "X-Sig",
                "hex",
                Duration.ofMinutes(5),
                "https://internal.example/x",
                "auto",
                10,
                false,
                t,
                t);
    }
}
