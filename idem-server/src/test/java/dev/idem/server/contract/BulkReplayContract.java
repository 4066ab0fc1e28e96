package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Tenant;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.LoopbackReceiver;
import dev.idem.store.testing.TestDatabase;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/api.md, "Bulk recovery": {@code POST /v1/deliveries/replay} replays every matching dead delivery once, in
 * chunks; a retry with the same {@code Idempotency-Key}, after the end or after a failure part-way, replays nothing
 * twice; the filter narrows it; a deleted or paused schedule's deliveries are skipped and counted; a bad filter is a 400 naming
 * the field and replays nothing. Each test has a project of its own, so a tenant-wide replay sees only its deliveries.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BulkReplayContract {
    @TempDir
    static Path dir;

    TestDatabase db;
    ContractServer node;
    LoopbackReceiver receiver;
    final IdGenerator ids = new IdGenerator(Clock.systemUTC(), new SecureRandom());
    final java.util.concurrent.atomic.AtomicLong occurrences = new java.util.concurrent.atomic.AtomicLong();

    abstract TestDatabase database(Path dir);

    /** Statements that make the UPDATE replaying {@code deliveryId} fail (a trigger named {@code idem_test_fail}). */
    abstract List<String> failReplayOf(String deliveryId);

    abstract List<String> removeFailure();

    @BeforeAll
    void start() throws Exception {
        db = database(dir);
        node = ContractServer.start(db.open(Clock.systemUTC()), dir, true);
        receiver = new LoopbackReceiver();
        // a replayed delivery fails again and is dead again; a 4xx, not a 5xx, so the engine does not throttle this one
        // destination (a 5xx makes it send fewer at once, and thousands of replays then trickle out)
        receiver.status.set(422);
    }

    @AfterAll
    void stop() {
        if (receiver != null) receiver.close();
        if (node != null) node.close();
        if (db != null) db.close();
    }

    record Project(String key, Tenant tenant) {}

    Project project() {
        String name = "bulk" + UUID.randomUUID().toString().substring(0, 8);
        String key = node.addProject(name)[0];
        String id = node.store
                .inTransaction(tx -> tx.projects().findByName(name))
                .orElseThrow()
                .id();
        return new Project(key, new Tenant(id, Mode.TEST));
    }

    String schedule(Project p, String path) {
        var r = node.api.call(
                "POST",
                "/v1/schedules",
                p.key(),
                "{\"endpoint\":\"" + receiver.url(path)
                        + "\",\"fire_at\":\"2035-01-01T00:00:00Z\",\"auto_pause_after\":0}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json().get("id").asText();
    }

    /** {@code n} deliveries of the schedule that went dead at {@code deadAt} after one attempt; their ids ascending. */
    List<String> dead(Project p, String scheduleId, int n, Instant deadAt) {
        List<Delivery> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String id = ids.next("dlv");
            long occurrence = occurrences.incrementAndGet(); // (schedule, scheduled_for) is unique
            rows.add(new Delivery(
                    id,
                    p.tenant(),
                    scheduleId,
                    Instant.parse("2020-01-01T00:00:00Z").plusSeconds(occurrence),
                    occurrence,
                    DeliveryStatus.DEAD,
                    1,
                    null,
                    id,
                    null,
                    null,
                    "HTTP 500",
                    deadAt,
                    deadAt));
        }
        node.store.useTransaction(tx -> tx.deliveries().insertAll(rows));
        return rows.stream().map(Delivery::id).sorted().toList();
    }

    ApiClientForTests.Reply bulk(Project p, String body, String idempotencyKey) {
        return node.api.call(
                "POST",
                "/v1/deliveries/replay",
                p.key(),
                body,
                idempotencyKey == null ? Map.of() : Map.of("Idempotency-Key", idempotencyKey));
    }

    /** How many requests the receiver got for each of {@code deliveryIds} (absent: none). */
    Map<String, Long> received(List<String> deliveryIds) {
        return receiver.requests.stream()
                .map(r -> r.header("webhook-id"))
                .filter(deliveryIds::contains)
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    }

    /**
     * Whether every one of {@code deliveryIds} is final again (dead or succeeded) after exactly {@code attempts} attempts:
     * counted by the store, since under load a loopback receiver may reset a connection it never records.
     */
    boolean finishedAfter(List<String> deliveryIds, int attempts) {
        return query("SELECT count(*) FROM deliveries WHERE attempt_count = " + attempts
                        + " AND status IN ('dead', 'succeeded') AND id IN ("
                        + deliveryIds.stream().map(id -> "'" + id + "'").collect(Collectors.joining(", ")) + ")")
                == deliveryIds.size();
    }

    void awaitFinishedAfter(List<String> deliveryIds, int attempts) {
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> finishedAfter(deliveryIds, attempts));
    }

    /** What the receiver saw of these deliveries: each at most once, as attempt 2 (the dead one's first was 1). */
    void assertReceivedAtMostOnceAsAttempt2(List<String> deliveryIds) {
        assertThat(received(deliveryIds).values()).allMatch(n -> n == 1L);
        assertThat(receiver.requests.stream()
                        .filter(r -> deliveryIds.contains(r.header("webhook-id")))
                        .map(r -> r.header("Idem-Attempt")))
                .allMatch("2"::equals);
    }

    String status(Project p, String deliveryId) {
        return node.api
                .call("GET", "/v1/deliveries/" + deliveryId, p.key(), null)
                .json()
                .get("status")
                .asText();
    }

    long deadCount(Tenant t) {
        return query("SELECT count(*) FROM deliveries WHERE status = 'dead' AND project_id = '" + t.projectId() + "'");
    }

    @Test
    void everyMatchAcrossChunksIsReplayedOnceAndTheRetryReplaysTheAnswer() {
        Project p = project();
        String s = schedule(p, "/chunks");
        List<String> dead = dead(p, s, 1_100, Instant.now().minusSeconds(600)); // chunks of 500, 500, 100
        long started = System.nanoTime();
        var first = bulk(p, "{\"status\":\"dead\"}", "bulk-chunks");
        System.out.printf(
                "bulk replay of %d dead deliveries on %s: %d ms%n",
                dead.size(), node.store.dialect(), (System.nanoTime() - started) / 1_000_000);
        assertThat(first.status()).as(first.raw()).isEqualTo(200);
        assertThat(first.json().get("replayed").asInt()).isEqualTo(1_100);
        assertThat(first.json().get("skipped_schedule_deleted").asInt()).isZero();

        awaitFinishedAfter(dead, 2);
        var again = bulk(p, "{\"status\":\"dead\"}", "bulk-chunks");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(again.raw()).isEqualTo(first.raw());
        // one more attempt each, numbered on from the dead delivery's first, same webhook-id; the retry added none
        assertThat(finishedAfter(dead, 2)).isTrue();
        assertThat(deadCount(p.tenant())).isEqualTo(dead.size());
        assertReceivedAtMostOnceAsAttempt2(dead);
    }

    @Test
    void aRetryAfterAFailurePartWayCarriesOnFromTheLastChunkAndReplaysNothingTwice() throws Exception {
        Project p = project();
        String s = schedule(p, "/partway");
        List<String> dead = dead(p, s, 1_200, Instant.now().minusSeconds(600));
        List<String> firstTwoChunks = dead.subList(0, 1_000);
        exec(failReplayOf(dead.get(1_100))); // the third chunk fails after two committed
        try {
            var failed = bulk(p, "{\"status\":\"dead\"}", "bulk-partway");
            assertThat(failed.status()).as(failed.raw()).isGreaterThanOrEqualTo(500);
            awaitFinishedAfter(firstTwoChunks, 2); // their replays failed too: dead again, as they were
            assertThat(finishedAfter(dead.subList(1_000, 1_200), 1))
                    .as("the third chunk rolled back, the rest not reached")
                    .isTrue();
            // the key carries the first request's progress: another request cannot take it over
            var other = bulk(p, "{\"status\":\"dead\",\"since\":\"1h\"}", "bulk-partway");
            assertThat(other.status()).isEqualTo(409);
            assertThat(other.json().at("/error/code").asText()).isEqualTo("idempotency_key_reuse");
        } finally {
            exec(removeFailure());
        }

        var retried = bulk(p, "{\"status\":\"dead\"}", "bulk-partway");
        assertThat(retried.status()).as(retried.raw()).isEqualTo(200);
        assertThat(retried.json().get("replayed").asInt()).isEqualTo(dead.size());
        awaitFinishedAfter(dead, 2); // each delivery replayed once, across the failure and the retry
        assertReceivedAtMostOnceAsAttempt2(dead);
        var again = bulk(p, "{\"status\":\"dead\"}", "bulk-partway");
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(again.raw()).isEqualTo(retried.raw());
    }

    @Test
    void theFilterNarrowsTheReplayAndADeletedSchedulesDeliveriesAreSkippedAndCounted() {
        Project p = project();
        Project other = project();
        String a = schedule(p, "/filter-a");
        String b = schedule(p, "/filter-b"); // the same host and port as a: the endpoint filter is exact
        String gone = schedule(p, "/filter-gone");
        Instant now = Instant.now();
        List<String> aOld = dead(p, a, 2, now.minus(Duration.ofHours(3)));
        List<String> aRecent = dead(p, a, 2, now.minus(Duration.ofMinutes(10)));
        List<String> bRecent = dead(p, b, 2, now.minus(Duration.ofMinutes(10)));
        List<String> goneRecent = dead(p, gone, 2, now.minus(Duration.ofMinutes(10)));
        List<String> elsewhere = dead(other, schedule(other, "/filter-other"), 1, now.minus(Duration.ofMinutes(10)));
        assertThat(node.api
                        .call("DELETE", "/v1/schedules/" + gone, p.key(), null)
                        .status())
                .isEqualTo(200);

        var one = bulk(p, "{\"status\":\"dead\",\"schedule_id\":\"" + a + "\",\"since\":\"1h\"}", null);
        assertThat(one.json().get("replayed").asInt()).as(one.raw()).isEqualTo(2);
        awaitFinishedAfter(aRecent, 2);
        assertThat(finishedAfter(aOld, 1)).isTrue();
        assertThat(finishedAfter(bRecent, 1)).isTrue();

        var byEndpoint = bulk(p, "{\"status\":\"dead\",\"endpoint\":\"" + receiver.url("/filter-b") + "\"}", null);
        assertThat(byEndpoint.json().get("replayed").asInt())
                .as(byEndpoint.raw())
                .isEqualTo(2);
        awaitFinishedAfter(bRecent, 2);
        assertThat(finishedAfter(aOld, 1)).isTrue();

        var byUntil = bulk(p, "{\"status\":\"dead\",\"until\":\"" + now.minus(Duration.ofHours(2)) + "\"}", null);
        assertThat(byUntil.json().get("replayed").asInt()).as(byUntil.raw()).isEqualTo(2);
        assertThat(byUntil.json().get("skipped_schedule_deleted").asInt()).isZero();

        awaitFinishedAfter(aOld, 2);
        var rest = bulk(p, "{\"status\":\"dead\"}", null);
        assertThat(rest.json().get("replayed").asInt()).as(rest.raw()).isEqualTo(6);
        assertThat(rest.json().get("skipped_schedule_deleted").asInt()).isEqualTo(2);
        goneRecent.forEach(id -> assertThat(status(p, id)).isEqualTo("dead"));
        assertThat(status(other, elsewhere.get(0)))
                .as("another project's dead delivery")
                .isEqualTo("dead");

        var single = node.api.call("POST", "/v1/deliveries/" + goneRecent.get(0) + "/replay", p.key(), null);
        assertThat(single.status()).isEqualTo(400);
        assertThat(single.json().at("/error/code").asText()).isEqualTo("schedule_deleted");
        assertThat(single.json().at("/error/param").asText()).isEqualTo("id");
        assertThat(single.json().at("/error/message").asText()).contains(goneRecent.get(0), gone);
        assertThat(finishedAfter(goneRecent, 1)).as("never sent again").isTrue();
    }

    String create(Project p, String path, String body) {
        var r = node.api.call("POST", path, p.key(), body);
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json().get("id").asText();
    }

    /** Each message's delivery to {@code endpointId}, in the messages' order. */
    List<String> deliveriesTo(Project p, List<String> messages, String endpointId) {
        return messages.stream()
                .map(m -> node.api
                        .call("GET", "/v1/messages/" + m, p.key(), null)
                        .json()
                        .get("endpoint_deliveries"))
                .map(ds -> {
                    for (var d : ds)
                        if (d.get("endpoint_id").asText().equals(endpointId))
                            return d.get("id").asText();
                    throw new AssertionError("no delivery to " + endpointId + " in " + ds);
                })
                .toList();
    }

    @Test
    void anEndpointsDeadDeliveriesSinceATimeAreReplayedAndNoOtherEndpointsNorOlderOnes() throws Exception {
        Project p = project();
        try (LoopbackReceiver ok = new LoopbackReceiver()) {
            String app = create(p, "/v1/applications", "{\"name\":\"shop\",\"uid\":\"shop\"}");
            String one =
                    create(p, "/v1/endpoints", "{\"url\":\"" + ok.url("/one") + "\",\"application\":\"" + app + "\"}");
            String two =
                    create(p, "/v1/endpoints", "{\"url\":\"" + ok.url("/two") + "\",\"application\":\"" + app + "\"}");
            List<String> messages = List.of(
                    create(
                            p,
                            "/v1/messages",
                            "{\"event_type\":\"order.paid\",\"application\":\"shop\",\"payload\":{}}"),
                    create(
                            p,
                            "/v1/messages",
                            "{\"event_type\":\"order.paid\",\"application\":\"shop\",\"payload\":{}}"));
            List<String> toOne = deliveriesTo(p, messages, one);
            List<String> toTwo = deliveriesTo(p, messages, two);
            List<String> all = new ArrayList<>(toOne);
            all.addAll(toTwo);
            awaitFinishedAfter(all, 1);
            // succeeded, then dead as if every attempt had failed: the older one before T, the recent ones after it
            Instant now = Instant.now();
            Instant t = now.minus(Duration.ofHours(1));
            markDead(toOne.get(0), now.minus(Duration.ofHours(3)));
            markDead(toOne.get(1), now.minus(Duration.ofMinutes(10)));
            markDead(toTwo.get(1), now.minus(Duration.ofMinutes(10)));

            var r = bulk(p, "{\"status\":\"dead\",\"endpoint_id\":\"" + one + "\",\"since\":\"" + t + "\"}", null);
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            assertThat(r.json().get("replayed").asInt()).as(r.raw()).isEqualTo(1);
            awaitFinishedAfter(List.of(toOne.get(1)), 2);
            assertThat(status(p, toOne.get(1))).isEqualTo("succeeded");
            assertThat(ok.requests.stream().filter(q -> q.path().equals("/one")).map(q -> q.header("Idem-Attempt")))
                    .containsExactly("1", "1", "2");
            assertThat(status(p, toOne.get(0))).as("dead before since").isEqualTo("dead");
            assertThat(status(p, toTwo.get(1))).as("another endpoint's").isEqualTo("dead");

            var byApp = bulk(p, "{\"status\":\"dead\",\"application\":\"shop\",\"since\":\"1h\"}", null);
            assertThat(byApp.json().get("replayed").asInt()).as(byApp.raw()).isEqualTo(1);
            awaitFinishedAfter(List.of(toTwo.get(1)), 2);
            assertThat(status(p, toOne.get(0))).isEqualTo("dead");
        }
    }

    void markDead(String deliveryId, Instant at) {
        new StoreRows(db.config()).markDead(deliveryId, at);
    }

    @Test
    void aPausedSchedulesDeadDeliveriesStayDeadAndAreCountedUntilItIsResumed() {
        Project p = project();
        String paused = schedule(p, "/paused");
        String active = schedule(p, "/active");
        Instant deadAt = Instant.now().minus(Duration.ofMinutes(10));
        List<String> ofPaused = dead(p, paused, 3, deadAt);
        List<String> ofActive = dead(p, active, 2, deadAt);
        assertThat(node.api
                        .call("POST", "/v1/schedules/" + paused + "/pause", p.key(), null)
                        .status())
                .isEqualTo(200);

        var r = bulk(p, "{\"status\":\"dead\"}", null);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.json().get("replayed").asInt()).as(r.raw()).isEqualTo(2);
        assertThat(r.json().get("skipped_schedule_paused").asInt()).isEqualTo(3);
        assertThat(r.json().get("skipped_schedule_deleted").asInt()).isZero();
        awaitFinishedAfter(ofActive, 2);
        ofPaused.forEach(id ->
                assertThat(status(p, id)).as("left in the dead-letter queue").isEqualTo("dead"));
        assertThat(finishedAfter(ofPaused, 1)).isTrue();

        assertThat(node.api
                        .call("POST", "/v1/schedules/" + paused + "/resume", p.key(), null)
                        .status())
                .isEqualTo(200);
        var after = bulk(p, "{\"status\":\"dead\",\"schedule_id\":\"" + paused + "\"}", null);
        assertThat(after.json().get("replayed").asInt()).as(after.raw()).isEqualTo(3);
        assertThat(after.json().get("skipped_schedule_paused").asInt()).isZero();
        awaitFinishedAfter(ofPaused, 2);
    }

    @Test
    void aCompletedSchedulesDeadDeliveryIsReplayedAndTheScheduleCompletesAgain() {
        Project p = project();
        var created = node.api.call(
                "POST",
                "/v1/schedules",
                p.key(),
                "{\"endpoint\":\"" + receiver.url("/completed") + "\",\"retry\":{\"max_attempts\":1}}");
        String s = created.json().get("id").asText();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "completed"
                        .equals(node.api
                                .call("GET", "/v1/schedules/" + s, p.key(), null)
                                .json()
                                .get("status")
                                .asText()));
        String delivery = node.api
                .call("GET", "/v1/deliveries?schedule_id=" + s, p.key(), null)
                .json()
                .at("/data/0/id")
                .asText();
        assertThat(status(p, delivery)).isEqualTo("dead");

        var r = bulk(p, "{\"status\":\"dead\",\"schedule_id\":\"" + s + "\"}", null);
        assertThat(r.json().get("replayed").asInt()).as(r.raw()).isEqualTo(1);
        awaitFinishedAfter(List.of(delivery), 2);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "completed"
                        .equals(node.api
                                .call("GET", "/v1/schedules/" + s, p.key(), null)
                                .json()
                                .get("status")
                                .asText()));
        assertThat(status(p, delivery)).isEqualTo("dead");
    }

    @Test
    void aBadFilterIs400NamingTheFieldAndReplaysNothing() {
        Project p = project();
        List<String> dead = dead(p, schedule(p, "/bad"), 3, Instant.now().minusSeconds(60));
        String elsewhere = create(project(), "/v1/endpoints", "{\"url\":\"" + receiver.url("/elsewhere") + "\"}");
        Map<String, String> bodies = new java.util.HashMap<>(Map.of(
                "{}", "status",
                "{\"status\":\"succeeded\"}", "status",
                "{\"status\":\"dead\",\"colour\":\"red\"}", "colour",
                "{\"status\":\"dead\",\"since\":\"yesterday\"}", "since",
                "{\"status\":\"dead\",\"since\":\"1h\",\"until\":\"2h\"}", "until",
                "{\"status\":\"dead\",\"schedule_id\":5}", "schedule_id",
                "{\"status\":\"dead\",\"endpoint\":\"\"}", "endpoint",
                "{\"status\":\"dead\",\"until\":\"2026-13-01T00:00:00Z\"}", "until"));
        bodies.putAll(Map.of(
                "{\"status\":\"dead\",\"application\":\"nobody\"}",
                "application",
                "{\"status\":\"dead\",\"endpoint_id\":\"" + elsewhere + "\"}",
                "endpoint_id",
                "{\"status\":\"dead\",\"endpoint_id\":\"ep_x\",\"schedule_id\":\"sch_x\"}",
                "endpoint_id"));
        bodies.forEach((body, param) -> {
            var r = bulk(p, body, "bad-" + param + body.length());
            assertThat(r.status()).as(body).isEqualTo(400);
            assertThat(r.json().at("/error/type").asText()).isEqualTo("invalid_request_error");
            assertThat(r.json().at("/error/param").asText()).as(body).isEqualTo(param);
        });
        var notAnObject = bulk(p, "[1]", null);
        assertThat(notAnObject.status()).isEqualTo(400);
        assertThat(deadCount(p.tenant())).isEqualTo(3);
        assertThat(finishedAfter(dead, 1)).isTrue();
        assertThat(query("SELECT count(*) FROM idempotency_records WHERE idem_key LIKE 'bad-%'"))
                .as("no key was used up")
                .isZero();
    }

    private Connection connect() throws Exception {
        var c = db.config();
        Properties props = new Properties();
        if (c.user() != null) props.setProperty("user", c.user());
        if (c.password() != null) props.setProperty("password", c.password());
        props.setProperty("busy_timeout", "30000");
        return DriverManager.getConnection(c.jdbcUrl(), props);
    }

    void exec(List<String> statements) throws Exception {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            for (String sql : statements) s.execute(sql);
        }
    }

    long query(String sql) {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
