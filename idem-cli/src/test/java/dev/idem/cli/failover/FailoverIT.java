package dev.idem.cli.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.cli.failover.LoopbackReceiver.Hit;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.testing.TcpProxy;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Node failover (docs/api.md, "Nodes and failover") with the fat jar as users run it: nodes are {@code idem serve} processes on one
 * PostgreSQL database (or one SQLite file), killed, paused and cut off their database with signals and a TCP proxy,
 * delivering to a receiver on loopback. Times are measured from the signal to the receiver's arrivals; the long runs
 * carry the tag {@code slow}.
 *
 * <p>The scenarios run at the same time (idem-cli's failsafe configuration enables JUnit's parallel execution): each
 * has its own database, temporary directory, receiver, proxy and ports, and most of a scenario is waiting (a receiver
 * answering in 2 s, a node stopped for 20 s, a takeover window of 10 s), so one after another they took minutes of
 * an idle machine. The promises they check are the product's under that load too.
 */
@Execution(ExecutionMode.CONCURRENT)
class FailoverIT {
    /** docs/api.md, "Nodes and failover": a dead node's claims are taken over within this. */
    static final Duration TAKEOVER_PROMISE = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private TestDatabase db;
    private LoopbackReceiver receiver;

    @AfterEach
    void tearDown(org.junit.jupiter.api.TestInfo test) throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception e) {
                // keep closing the rest
            }
        }
        // the nodes' logs outlive the temporary directory, for whoever reads a failure
        Path logs = Path.of("target", "failover-logs");
        java.nio.file.Files.createDirectories(logs);
        for (AutoCloseable c : closeables)
            if (c instanceof JarNode n)
                java.nio.file.Files.writeString(
                        logs.resolve(test.getTestMethod().orElseThrow().getName() + "-" + n.name + ".log"), n.log());
        if (receiver != null) receiver.close();
        if (db != null) db.close();
    }

    private void postgres(Duration answerAfter) throws Exception {
        db = TestStores.postgresDatabase();
        receiver = new LoopbackReceiver(answerAfter);
    }

    private JarNode node(String name, String nodeId) throws Exception {
        return node(name, nodeId, db.config().jdbcUrl());
    }

    private JarNode node(String name, String nodeId, String databaseUrl) throws Exception {
        JarNode n = JarNode.launch(dir, name, nodeId, databaseUrl, db.config().user(), null);
        closeables.add(n);
        return n.awaitReady();
    }

    /** {@code n} one-shot schedules to the receiver, due at {@code at} (their deliveries are written at create). */
    /**
     * Creates {@code n} one-shots due at {@code at} through the batch route, in calls of up to 1,000: one request per
     * thousand, so a loaded machine cannot make the creates outlast the instant they are due at (one POST each did,
     * under a load average of 34).
     */
    private void schedulesDueAt(JarNode via, int n, Instant at, String extra) throws Exception {
        String body = "{\"endpoint\":\"" + receiver.url() + "\",\"fire_at\":\"" + at + "\"" + extra + "}";
        for (int from = 0; from < n; from += 1000) {
            int size = Math.min(1000, n - from);
            String batch = "{\"schedules\":[" + String.join(",", java.util.Collections.nCopies(size, body)) + "]}";
            var answer = via.post("/v1/schedules/batch", batch);
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).contains("\"created\":" + size + ",\"failed\":0");
        }
    }

    private Connection sql() throws Exception {
        Properties p = new Properties();
        p.setProperty("user", db.config().user());
        return DriverManager.getConnection(db.config().jdbcUrl(), p);
    }

    private <T> List<T> rows(String query, Row<T> row) throws Exception {
        try (Connection c = sql();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            List<T> out = new ArrayList<>();
            while (rs.next()) out.add(row.map(rs));
            return out;
        }
    }

    interface Row<T> {
        T map(ResultSet rs) throws Exception;
    }

    /** Delivery id → lease owner of every delivery being delivered now. */
    private Map<String, String> claims() throws Exception {
        return rows(
                        "SELECT id, lease_owner FROM deliveries WHERE status = 'delivering'",
                        rs -> Map.entry(rs.getString(1), rs.getString(2)))
                .stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private long count(String where) throws Exception {
        return rows("SELECT COUNT(*) FROM deliveries WHERE " + where, rs -> rs.getLong(1))
                .get(0);
    }

    private long epochOf(String nodeId) throws Exception {
        return rows("SELECT epoch FROM nodes WHERE node_id = '" + nodeId + "'", rs -> rs.getLong(1))
                .get(0);
    }

    /** The node (of {@code a}, {@code b}) holding more claims now. */
    private static JarNode holderOfMost(Map<String, String> claims, JarNode a, JarNode b) {
        long ofA =
                claims.values().stream().filter(o -> o.startsWith(a.name + "#")).count();
        return ofA * 2 >= claims.size() ? a : b;
    }

    /** Every delivery's attempts, in arrival order, are distinct and increasing: no claim was sent after it was superseded. */
    private void attemptsOnlyMovedForward() {
        receiver.attemptsByDelivery().forEach((id, attempts) -> {
            for (int i = 1; i < attempts.size(); i++)
                assertThat(attempts.get(i))
                        .as("attempts of %s in arrival order: %s", id, attempts)
                        .isGreaterThan(attempts.get(i - 1));
        });
    }

    /** In the store's history no delivery has two attempts that read as successes (a stale one says so in its error). */
    private void noDeliverySucceededTwice() throws Exception {
        assertThat(rows(
                        "SELECT delivery_id FROM attempts WHERE error IS NULL AND status_code BETWEEN 200 AND 299 "
                                + "GROUP BY delivery_id HAVING COUNT(*) > 1",
                        rs -> rs.getString(1)))
                .isEmpty();
    }

    private static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f s", nanos / 1e9);
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /**
     * Kills (SIGKILL) whichever of two nodes holds more claims while {@code n} requests are in flight to a receiver that
     * answers in {@code answer}; checks that every claim of the dead node is sent again, as the next attempt, within the
     * documented 15 s, and returns what it measured.
     */
    private Takeover killOneOfTwo(int n) throws Exception {
        JarNode a = node("node-a", "node-a");
        JarNode b = node("node-b", "node-b");
        // all due at one instant, after every create has been answered
        Instant due = Instant.now().plusSeconds(5 + n / 20);
        schedulesDueAt(a, n, due, "");
        assertThat(Instant.now())
                .as("every schedule created before they fall due")
                .isBefore(due);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !claims().isEmpty() && Instant.now().isAfter(due.plusSeconds(1)));
        JarNode victim = holderOfMost(claims(), a, b);
        JarNode survivor = victim == a ? b : a;
        long killedAt = System.nanoTime();
        victim.kill9();
        // read after the kill: what it held when it died (nobody may take them over within half a window)
        Set<String> orphans = claims().entrySet().stream()
                .filter(e -> e.getValue().startsWith(victim.name + "#"))
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        assertThat(orphans).as("claims of %s at the kill", victim.name).isNotEmpty();

        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> count("status <> 'succeeded'") == 0);
        long allSucceeded = System.nanoTime() - killedAt;
        Map<String, Long> resent = new HashMap<>();
        for (Hit h : receiver.hits())
            if (orphans.contains(h.deliveryId()) && h.arrivedNanos() > killedAt)
                resent.merge(h.deliveryId(), h.arrivedNanos(), Math::min);
        assertThat(resent.keySet())
                .as("every claim of the dead node is sent again")
                .isEqualTo(orphans);
        long first = resent.values().stream().mapToLong(t -> t - killedAt).min().orElseThrow();
        long last = resent.values().stream().mapToLong(t -> t - killedAt).max().orElseThrow();
        assertThat(Duration.ofNanos(last))
                .as("kill -> last claim of the dead node sent again")
                .isLessThan(TAKEOVER_PROMISE);

        attemptsOnlyMovedForward();
        noDeliverySucceededTwice();
        assertThat(survivor.log()).containsOnlyOnce("declared node " + victim.name + " dead");
        assertThat(survivor.metric("idem_leases_reclaimed_total")).isEqualTo(orphans.size());
        return new Takeover(orphans.size(), first, last, allSucceeded);
    }

    record Takeover(int claims, long firstResendNanos, long lastResendNanos, long allSucceededNanos) {
        @Override
        public String toString() {
            return claims + " claims taken over: kill -> first re-send " + seconds(firstResendNanos)
                    + ", kill -> last re-send " + seconds(lastResendNanos) + ", kill -> every delivery succeeded "
                    + seconds(allSucceededNanos);
        }
    }

    @Test
    void aNodeKilledWithSigkillHasEveryClaimTakenOverWithinFifteenSeconds() throws Exception {
        postgres(Duration.ofSeconds(2));
        Takeover t = killOneOfTwo(40);
        System.out.println("FAILOVER kill -9, 40 deliveries, 2 s receiver: " + t + " (load " + loadAverage() + ")");
    }

    /** The issue's measurement: 300 deliveries to a receiver answering in 2 s, two nodes, one killed a second after they fell due. */
    @Tag("slow")
    @Test
    void takeoverTimesWithThreeHundredDeliveriesToATwoSecondReceiverOnTwoNodes() throws Exception {
        postgres(Duration.ofSeconds(2));
        Takeover t = killOneOfTwo(300);
        System.out.println("FAILOVER kill -9, 300 deliveries, 2 s receiver: " + t + " (load " + loadAverage() + ")");
    }

    @Test
    void aSecondNodeStartedWithTheIdOfALiveOneIsRefusedInOneLineWithExitCode2() throws Exception {
        postgres(Duration.ZERO);
        JarNode first = node("first", "twin");
        JarNode second = JarNode.launch(
                dir, "second", "twin", db.config().jdbcUrl(), db.config().user(), null);
        closeables.add(second);
        assertThat(second.process().waitFor(90, TimeUnit.SECONDS))
                .as("the second node exits")
                .isTrue();
        assertThat(second.process().exitValue()).isEqualTo(2);
        List<String> lines = second.log().lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines.get(lines.size() - 1))
                .startsWith("idem: node id 'twin' is already used by a live node (pid " + first.pid() + " on ");
        assertThat(second.log()).doesNotContain("\tat ", "Exception");
        assertThat(first.get("/readyz").statusCode()).isEqualTo(200);
        assertThat(epochOf("twin")).isEqualTo(1);
    }

    @Test
    void aNodeRestartedAtOnceAfterSigkillUnderTheSameIdStartsWithoutWaitingAndSendsItsOldClaimsAgain()
            throws Exception {
        postgres(Duration.ZERO);
        receiver.answerAfter(h -> h.attempt() == 1 ? 30_000 : 0);
        JarNode first = node("solo-1", "solo");
        schedulesDueAt(first, 10, Instant.now(), "");
        await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits().size() == 10);
        first.kill9();

        JarNode again = node("solo-2", "solo");
        await().atMost(Duration.ofSeconds(60)).until(() -> count("status = 'succeeded'") == 10);
        assertThat(receiver.attemptsByDelivery())
                .hasSize(10)
                .allSatisfy((id, attempts) -> assertThat(attempts).containsExactly(1, 2));
        assertThat(again.log())
                .contains("took over 10 claims of its previous incarnation 1 (pid " + first.pid())
                .contains("its process ended on this machine")
                .doesNotContain("watching it");
        assertThat(epochOf("solo")).isEqualTo(2);
    }

    @Test
    void anSqliteNodeRestartedAfterSigkillTakesItsPreviousProcesssClaimsBackAtStart() throws Exception {
        receiver = new LoopbackReceiver(Duration.ZERO);
        receiver.answerAfter(h -> h.attempt() == 1 ? 30_000 : 0);
        Path data = dir.resolve("data");
        // the default node id (host name + pid): the restarted node has another id than the one that died
        JarNode first = JarNode.launch(dir, "sqlite-1", null, null, null, data).awaitReady();
        closeables.add(first);
        schedulesDueAt(first, 10, Instant.now(), "");
        await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits().size() == 10);
        first.kill9();

        JarNode again = JarNode.launch(dir, "sqlite-2", null, null, null, data).awaitReady();
        closeables.add(again);
        await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits().size() == 20);
        assertThat(receiver.attemptsByDelivery())
                .hasSize(10)
                .allSatisfy((id, attempts) -> assertThat(attempts).containsExactly(1, 2));
        assertThat(again.log())
                .containsPattern(
                        "declared node \\S+-" + first.pid() + " dead \\(incarnation 1, pid " + first.pid()
                                + " on \\S+: its process ended on this machine, last renewed [0-9.]+ s ago\\) and took over its 10 claims");
    }

    @Tag("slow")
    @Test
    void aNodeStoppedForTwentySecondsLosesItsClaimsStartsNoneOfThemAfterwardsAndItsLateOutcomesAreDropped()
            throws Exception {
        postgres(Duration.ofSeconds(2));
        JarNode a = node("node-a", "node-a");
        JarNode b = node("node-b", "node-b");
        Instant due = Instant.now().plusSeconds(4);
        schedulesDueAt(a, 150, due, "");
        await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits().size() >= 64);
        JarNode paused = holderOfMost(claims(), a, b);
        JarNode other = paused == a ? b : a;
        paused.pause();
        long pausedAt = System.nanoTime();
        Set<String> held = claims().entrySet().stream()
                .filter(e -> e.getValue().startsWith(paused.name + "#"))
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        Set<String> sent = receiver.hits().stream().map(Hit::deliveryId).collect(Collectors.toSet());
        Set<String> heldNotStarted =
                held.stream().filter(id -> !sent.contains(id)).collect(Collectors.toSet());

        // taken over while it is stopped, within the documented 15 s
        await().atMost(TAKEOVER_PROMISE)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> claims().values().stream().noneMatch(o -> o.startsWith(paused.name + "#")));
        long takenOver = System.nanoTime() - pausedAt;
        Thread.sleep(Math.max(0, pausedAt + TimeUnit.SECONDS.toNanos(20) - System.nanoTime()) / 1_000_000);
        long resumedAt = System.nanoTime();
        paused.resume();

        await().atMost(Duration.ofSeconds(120)).until(() -> count("status <> 'succeeded'") == 0);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> paused.log().contains("was declared dead by node " + other.name));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> paused.metric("idem_deliveries_total{outcome=\"stale\"") > 0);
        assertThat(epochOf(paused.name)).isEqualTo(2);
        // a claim it held but had not started before the pause never went out from it after
        for (Hit h : receiver.hits())
            if (heldNotStarted.contains(h.deliveryId()) && h.arrivedNanos() > resumedAt)
                assertThat(h.attempt()).isGreaterThan(1);
        attemptsOnlyMovedForward();
        noDeliverySucceededTwice();
        double succeeded = a.metric("idem_deliveries_total{outcome=\"succeeded\"")
                + b.metric("idem_deliveries_total{outcome=\"succeeded\"");
        assertThat(succeeded).as("outcomes applied as succeeded, both nodes").isEqualTo(150.0);
        System.out.println("FAILOVER SIGSTOP 20 s, 150 deliveries: " + held.size() + " claims (" + heldNotStarted.size()
                + " not yet started) taken over " + seconds(takenOver) + " after the stop; "
                + paused.metric("idem_deliveries_total{outcome=\"stale\"")
                + " late outcomes dropped (load " + loadAverage() + ")");
    }

    @Tag("slow")
    @Test
    void aNodeCutOffItsDatabaseForTwentySecondsStopsSendingAndComesBackByItself() throws Exception {
        postgres(Duration.ofSeconds(2));
        URI pg = URI.create(db.config().jdbcUrl().substring("jdbc:".length()));
        TcpProxy proxy = new TcpProxy(new InetSocketAddress(pg.getHost(), pg.getPort() < 0 ? 5432 : pg.getPort()));
        closeables.add(proxy);
        String viaProxy = db.config().jdbcUrl().replaceFirst("//[^/]+/", "//127.0.0.1:" + proxy.port() + "/");
        JarNode cut = node("node-a", "node-a", viaProxy);
        JarNode b = node("node-b", "node-b");
        // a steady stream: 8 deliveries due every second for 40 s
        Instant start = Instant.now().plusSeconds(5);
        for (int s = 0; s < 40; s++) schedulesDueAt(b, 8, start.plusSeconds(s), "");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> cut.metric("idem_delivery_lag_seconds_count") > 0
                        && Instant.now().isAfter(start.plusSeconds(8)));

        proxy.cut();
        long cutAt = System.nanoTime();
        // half the 10 s window without a renewal, and it starts nothing (its requests then in flight end within 2 s)
        await().atMost(Duration.ofSeconds(10)).until(() -> cut.metric("idem_node_live") == 0.0);
        Thread.sleep(Math.max(0, cutAt + TimeUnit.SECONDS.toNanos(8) - System.nanoTime()) / 1_000_000);
        double startedAtEight = cut.metric("idem_delivery_lag_seconds_count");
        Thread.sleep(Math.max(0, cutAt + TimeUnit.SECONDS.toNanos(20) - System.nanoTime()) / 1_000_000);
        assertThat(cut.metric("idem_delivery_lag_seconds_count"))
                .as("attempts started while cut off")
                .isEqualTo(startedAtEight);
        proxy.restore();

        await().atMost(Duration.ofSeconds(30)).until(() -> cut.metric("idem_node_live") == 1.0);
        // node-b stops gracefully (its leases released): the rest of the stream is the node that was cut off's to send
        // (with both live, node-b's claims at each second's instant could take every row, and the check below failed)
        b.close();
        await().atMost(Duration.ofSeconds(120)).until(() -> count("status <> 'succeeded'") == 0);
        assertThat(count("status = 'succeeded'")).isEqualTo(320);
        assertThat(cut.log()).contains("was declared dead by node node-b").contains("is live as incarnation 2");
        assertThat(cut.metric("idem_delivery_lag_seconds_count"))
                .as("it sends again")
                .isGreaterThan(startedAtEight);
        attemptsOnlyMovedForward();
        noDeliverySucceededTwice();
    }

    @Tag("slow")
    @Test
    void requestsOfFiftyFiveSecondsOnALiveNodeAreNeverTakenOver() throws Exception {
        postgres(Duration.ofSeconds(55));
        JarNode a = node("node-a", "node-a");
        JarNode b = node("node-b", "node-b");
        schedulesDueAt(a, 20, Instant.now().plusSeconds(3), ",\"timeout\":\"60s\"");
        await().atMost(Duration.ofSeconds(150)).until(() -> count("status = 'succeeded'") == 20);
        assertThat(receiver.attemptsByDelivery())
                .hasSize(20)
                .allSatisfy((id, attempts) -> assertThat(attempts).containsExactly(1));
        assertThat(a.metric("idem_leases_reclaimed_total") + b.metric("idem_leases_reclaimed_total"))
                .isZero();
        assertThat(a.log() + b.log()).doesNotContain("declared node");
    }

    @Tag("slow")
    @Test
    void aNodePausedForFourSecondsKeepsItsClaimsAndNothingIsSentTwice() throws Exception {
        postgres(Duration.ofSeconds(3));
        JarNode a = node("node-a", "node-a");
        JarNode b = node("node-b", "node-b");
        schedulesDueAt(a, 40, Instant.now().plusSeconds(4), "");
        await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits().size() == 40);
        JarNode paused = holderOfMost(claims(), a, b);
        paused.pause();
        Thread.sleep(4_000);
        paused.resume();
        await().atMost(Duration.ofSeconds(60)).until(() -> count("status = 'succeeded'") == 40);
        assertThat(receiver.attemptsByDelivery())
                .hasSize(40)
                .allSatisfy((id, attempts) -> assertThat(attempts).containsExactly(1));
        assertThat(a.metric("idem_deliveries_total{outcome=\"stale\"")
                        + b.metric("idem_deliveries_total{outcome=\"stale\""))
                .isZero();
        assertThat(epochOf(paused.name)).isEqualTo(1);
    }
}
