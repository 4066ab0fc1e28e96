package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Mode;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
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
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The master key rotation of docs/security.md done while the service works, with real nodes on one PostgreSQL
 * database: schedules keep being delivered and provider events ingested and forwarded, secrets keep rotating, and every
 * delivery arrives once, at its first attempt, signed with a secret the nodes gave out.
 */
// beside the other classes marked so (idem-cli's failsafe configuration): its tests wait on node processes, timers
// and receivers, each in its own directory and database on its own ports
@Execution(ExecutionMode.CONCURRENT)
class MasterKeyRotationIT {
    /** Rows sealed by the old key beside the served project's own: rewrap walks them in several batches. */
    private static final int SEALED_SOURCES = 1_000;

    @TempDir
    Path dir;

    private final SecureRandom random = new SecureRandom();
    private final Instant now = Instant.now();

    @Test
    void rewrapRunsWhileDeliveriesFlowEventsAreIngestedAndSecretsRotateAndLeavesEverySecretUnderTheNewPrimary()
            throws Exception {
        MasterKeys old = MasterKeys.generate(random, now);
        MasterKeys promoted = old.withNewPrimary(random, now);
        Path oldFile = keyset("old.json", old);
        Path promotedFile = keyset("promoted.json", promoted);
        try (TestDatabase db = TestStores.postgresDatabase();
                RotationTraffic traffic = new RotationTraffic(
                        dir, db.config().jdbcUrl(), db.config().user())) {
            sealSources(db, old);
            NodeProcess first = traffic.serve(oldFile).awaitReady();
            traffic.setUp(first); // the project's signing secret and its source, sealed by the old key
            RotationTraffic.stop(first);

            NodeProcess node = traffic.serve(promotedFile).awaitReady();
            for (int i = 0; i < 5; i++) traffic.work(node, "before");
            Process rewrap = rewrap(db, promotedFile);
            int hitsWhenRewrapStarted = traffic.receiver.hits().size();
            int rounds = 0;
            while (rewrap.isAlive() || rounds < 3) {
                traffic.work(node, "during");
                if (rounds % 4 == 0) traffic.rotateSigningSecret(node);
                if (rounds % 4 == 2) traffic.rotateSourceSecret(node, node);
                rounds++;
            }
            int hitsWhenRewrapEnded = traffic.receiver.hits().size();
            assertThat(rewrap.waitFor()).as(log("rewrap.err")).isZero();
            assertThat(log("rewrap.out")).contains("0 not under " + promoted.primaryId());
            assertThat(hitsWhenRewrapEnded)
                    .as("deliveries arrived while rewrap ran")
                    .isGreaterThan(hitsWhenRewrapStarted);
            for (int i = 0; i < 5; i++) traffic.work(node, "after");
            // a secret sealed after the rewrap, under the new primary, signs
            traffic.awaitSignedWith(node, traffic.rotateSigningSecret(node), "newest");

            traffic.awaitEveryDeliveryOnceAndVerified();
            assertThat(traffic.deadDeliveries(node)).isEmpty();
            try (Store store = JdbcStores.open(db.config().withMasterKeys(promoted), Clock.systemUTC())) {
                Resealing.Census census = JdbcStores.resealing(store).census();
                assertThat(census.keyIds()).containsExactly(promoted.primaryId());
                assertThat(census.byColumn().get("sources.secret").get(promoted.primaryId()))
                        .isEqualTo(SEALED_SOURCES + 1L);
            }
        }
    }

    /**
     * Both mixed moments of the two rolling restarts, with four starts: node two already runs with the new key staged
     * while node one still has only the old key (step 1 half done); then node one restarts with the new key primary
     * while node two still has it staged (step 2 half done), and node one's rotations seal with the new key what node
     * two must open; then node two restarts with it too.
     */
    @Test
    void twoNodesWithTheOldAndTheNewKeysetServeOneDatabaseThroughARollingRestartAndDeliveriesStaySigned()
            throws Exception {
        MasterKeys old = MasterKeys.generate(random, now);
        MasterKeys staged = old.withNewKey(random, now); // step 1: every node can open what the new key will seal
        MasterKeys promoted = staged.withPrimary(staged.newestId()); // step 2: the new key seals
        Path oldFile = keyset("old.json", old);
        Path stagedFile = keyset("staged.json", staged);
        Path promotedFile = keyset("promoted.json", promoted);
        try (TestDatabase db = TestStores.postgresDatabase();
                RotationTraffic traffic = new RotationTraffic(
                        dir, db.config().jdbcUrl(), db.config().user())) {
            NodeProcess one = traffic.serve(oldFile);
            NodeProcess two = traffic.serve(stagedFile);
            one.awaitReady();
            two.awaitReady();
            traffic.setUp(one);
            both(traffic, one, two, "old-and-staged");

            RotationTraffic.stop(one);
            traffic.work(two, "one-down");
            one = traffic.serve(promotedFile).awaitReady();
            both(traffic, one, two, "promoted-and-staged");
            // node one seals with the new key; node two, not restarted yet, opens what it sealed
            String rotated = traffic.rotateSigningSecret(one);
            traffic.rotateSourceSecret(one, one, two);
            NodeProcess reader = two;
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> traffic.revealSigningSecret(reader).equals(rotated));
            both(traffic, one, two, "rotated");
            traffic.awaitSignedWith(two, rotated, "signed-with-rotated");

            RotationTraffic.stop(two);
            traffic.work(one, "two-down");
            two = traffic.serve(promotedFile).awaitReady();
            both(traffic, one, two, "promoted");

            traffic.awaitEveryDeliveryOnceAndVerified();
            assertThat(traffic.deadDeliveries(two)).isEmpty();
            try (Store store = JdbcStores.open(db.config().withMasterKeys(promoted), Clock.systemUTC())) {
                assertThat(JdbcStores.resealing(store).census().keyIds())
                        .as("values sealed by each key until rewrap runs")
                        .containsExactlyInAnyOrder(old.primaryId(), promoted.primaryId());
            }
        }
    }

    /** Work through each node in turn. */
    private static void both(RotationTraffic traffic, NodeProcess one, NodeProcess two, String phase) throws Exception {
        for (int i = 0; i < 3; i++) {
            traffic.work(one, phase);
            traffic.work(two, phase);
        }
    }

    private Path keyset(String name, MasterKeys keys) throws Exception {
        Path file = dir.resolve(name);
        MasterKeyFile.writeNew(file, keys);
        return file;
    }

    /** Sources of another project sealed by {@code keys} before any node starts. */
    private static void sealSources(TestDatabase db, MasterKeys keys) throws Exception {
        Tenant tenant = new Tenant("proj_sealed", Mode.TEST);
        try (Store store = JdbcStores.open(db.config().withMasterKeys(keys), Clock.systemUTC())) {
            store.useTransaction(tx -> {
                for (int i = 0; i < SEALED_SOURCES; i++) tx.sources().insert(MasterKeyRewrapIT.source(tenant, i));
            });
        }
    }

    private Process rewrap(TestDatabase db, Path keysetFile) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(NodeProcess.javaCommand(
                        "-jar",
                        NodeProcess.JAR.toAbsolutePath().toString(),
                        "keys",
                        "master",
                        "rewrap",
                        "--database-url",
                        db.config().jdbcUrl(),
                        "--master-key-file",
                        keysetFile.toString()))
                .redirectOutput(dir.resolve("rewrap.out").toFile())
                .redirectError(dir.resolve("rewrap.err").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("IDEM_"));
        pb.environment()
                .putAll(Map.of("IDEM_DATABASE_USER", String.valueOf(db.config().user())));
        return pb.start();
    }

    private String log(String name) throws Exception {
        return Files.readString(dir.resolve(name));
    }
}
