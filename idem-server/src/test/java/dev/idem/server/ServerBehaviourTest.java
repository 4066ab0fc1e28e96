package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.Mode;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.testing.MutableClock;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Behaviour that needs its own node: moved clocks, rate limits, key administration, recurring deliveries, PATCH. */
class ServerBehaviourTest {
    @TempDir
    Path dir;

    Store store;
    TestNode node;
    LoopbackReceiver receiver;

    TestNode start(Clock clock, int rateLimit) throws Exception {
        store = TestStores.sqlite(dir, clock);
        receiver = new LoopbackReceiver();
        node = new TestNode(store, dir, clock, rateLimit);
        return node;
    }

    @AfterEach
    void stop() {
        if (node != null) node.close();
        if (receiver != null) receiver.close();
        if (store != null) store.close();
    }

    @Test
    void anIdempotencyKeyIsReplayedWithin24HoursAndRunsAnewAfter() throws Exception {
        MutableClock clock = MutableClock.at(Instant.parse("2026-06-01T10:00:00Z"));
        start(clock, 0);
        String body = "{\"endpoint\":\"" + receiver.url("/k") + "\",\"fire_at\":\"2030-01-01T00:00:00Z\"}";
        Map<String, String> key = Map.of("Idempotency-Key", "create-once");
        var first = node.api.call("POST", "/v1/schedules", TestNode.TEST_KEY, body, key);
        clock.advance(Duration.ofHours(23));
        var replay = node.api.call("POST", "/v1/schedules", TestNode.TEST_KEY, body, key);
        assertThat(replay.status()).isEqualTo(201);
        assertThat(replay.raw()).isEqualTo(first.raw());
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        clock.advance(Duration.ofHours(1).plusSeconds(1));
        var anew = node.api.call("POST", "/v1/schedules", TestNode.TEST_KEY, body, key);
        assertThat(anew.status()).isEqualTo(201);
        assertThat(anew.header("Idempotent-Replayed")).isNull();
        assertThat(anew.json().get("id").asText())
                .isNotEqualTo(first.json().get("id").asText());
    }

    @Test
    void aDedupIdReturnsTheFirstScheduleWithin24HoursAndCreatesAnewAfter() throws Exception {
        MutableClock clock = MutableClock.at(Instant.parse("2026-06-01T10:00:00Z"));
        start(clock, 0);
        String body = "{\"endpoint\":\"" + receiver.url("/d")
                + "\",\"fire_at\":\"2030-01-01T00:00:00Z\",\"dedup_id\":\"order-7\"}";
        var first = node.call("POST", "/v1/schedules", body);
        assertThat(first.status()).as(first.raw()).isEqualTo(201);
        String firstId = first.json().get("id").asText();
        clock.advance(Duration.ofHours(23).plusMinutes(59));
        var again = node.call("POST", "/v1/schedules", body.replace("/d", "/other"));
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.header("Idem-Deduplicated")).isEqualTo("true");
        assertThat(again.json().get("id").asText()).isEqualTo(firstId);
        clock.advance(Duration.ofMinutes(1).plusSeconds(1));
        var anew = node.call("POST", "/v1/schedules", body);
        assertThat(anew.status()).as(anew.raw()).isEqualTo(201);
        assertThat(anew.header("Idem-Deduplicated")).isNull();
        assertThat(anew.json().get("id").asText()).isNotEqualTo(firstId);
        var thenDeduplicated = node.call("POST", "/v1/schedules", body);
        assertThat(thenDeduplicated.json().get("id").asText())
                .isEqualTo(anew.json().get("id").asText());
    }

    @Test
    void aPortInUseFailsTheStartWithWhatToDoBeforeTheEngineRuns() throws Exception {
        store = TestStores.sqlite(dir, Clock.systemUTC());
        String nodeId = "bind-first-" + System.nanoTime();
        try (java.net.ServerSocket taken =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            ServerConfig config = ServerConfig.builder()
                    .port(taken.getLocalPort())
                    .dataDir(dir)
                    .bootstrapKey(TestNode.TEST_KEY)
                    .allowPrivateEndpoints(true)
                    .nodeId(nodeId)
                    .rateLimitPerSecond(0)
                    .build();
            assertThatThrownBy(() ->
                            IdemServer.start(config, store, false, Clock.systemUTC(), new SecureRandom(), System.out))
                    .isInstanceOf(StartupException.class)
                    .hasMessageContaining("port " + taken.getLocalPort() + " on 127.0.0.1 is already in use")
                    .hasMessageContaining("--port");
        }
        assertThat(Thread.getAllStackTraces().keySet())
                .as("no engine thread ran or was left running")
                .noneMatch(t -> t.isAlive() && t.getName().contains(nodeId));
        assertThat(store.isReachable()).as("the caller's store is left open").isTrue();
    }

    @Test
    void aKeyLeftInProgressByADeadProcessIsRefusedThenTakenOverAfterItsLock() throws Exception {
        MutableClock clock = MutableClock.at(Instant.parse("2026-06-01T10:00:00Z"));
        start(clock, 0);
        String projectId = store.inTransaction(tx -> tx.projects().findByName("default"))
                .orElseThrow()
                .id();
        Tenant tenant = new Tenant(projectId, Mode.TEST);
        store.useTransaction(tx -> tx.idempotency()
                .tryInsert(new IdempotencyRecord(
                        tenant,
                        "orphan",
                        "whatever",
                        clock.instant(),
                        clock.instant().plusSeconds(30),
                        null,
                        null)));
        String body = "{\"endpoint\":\"" + receiver.url("/o") + "\",\"fire_at\":\"2030-01-01T00:00:00Z\"}";
        var busy = node.api.call("POST", "/v1/schedules", TestNode.TEST_KEY, body, Map.of("Idempotency-Key", "orphan"));
        assertThat(busy.status()).isEqualTo(409);
        assertThat(busy.json().get("error").get("code").asText()).isEqualTo("idempotency_in_progress");
        assertThat(busy.json().get("error").get("type").asText()).isEqualTo("idempotency_error");
        clock.advance(Duration.ofSeconds(31));
        var taken =
                node.api.call("POST", "/v1/schedules", TestNode.TEST_KEY, body, Map.of("Idempotency-Key", "orphan"));
        assertThat(taken.status()).isEqualTo(201);
    }

    @Test
    void requestsOverTheKeysRateGet429WithRetryAfter() throws Exception {
        start(Clock.systemUTC(), 2);
        int limited = 0;
        ApiClientForTests.Reply last = null;
        for (int i = 0; i < 10; i++) {
            var r = node.call("GET", "/v1/schedules", null);
            if (r.status() == 429) {
                limited++;
                last = r;
            }
        }
        assertThat(limited).isGreaterThan(0);
        assertThat(last.header("Retry-After")).isEqualTo("1");
        assertThat(last.json().get("error").get("type").asText()).isEqualTo("rate_limit_error");
    }

    @Test
    void aKeyMadeByTheAdminWorksInItsOwnProjectOnlyAndRevocationTakesEffectWithinTheKeyCacheTime() throws Exception {
        MutableClock clock = MutableClock.at(Instant.parse("2026-06-01T10:00:00Z"));
        start(clock, 0);
        KeyAdmin admin = new KeyAdmin(store, false, Clock.systemUTC(), new SecureRandom());
        KeyAdmin.NewKey acme = admin.create("acme", Mode.TEST);
        assertThat(acme.secret()).startsWith("sk_test_");
        String id = node.call(
                        "POST",
                        "/v1/schedules",
                        "{\"endpoint\":\"" + receiver.url("/a") + "\",\"fire_at\":\"2030-01-01T00:00:00Z\"}")
                .json()
                .get("id")
                .asText();
        assertThat(node.api
                        .call("GET", "/v1/schedules/" + id, acme.secret(), null)
                        .status())
                .isEqualTo(404);
        assertThat(node.api
                        .call("GET", "/v1/schedules", acme.secret(), null)
                        .json()
                        .get("data"))
                .isEmpty();
        assertThat(admin.list("acme"))
                .extracting(k -> k.id())
                .containsExactly(acme.key().id());
        assertThat(admin.list("acme").get(0).hash())
                .doesNotContain(acme.secret().substring(8));
        assertThat(admin.revoke(acme.key().id())).isTrue();
        // the node trusts a key it found active for Authenticator.CACHE_TTL, on every node alike
        assertThat(node.api.call("GET", "/v1/schedules", acme.secret(), null).status())
                .isEqualTo(200);
        clock.advance(dev.idem.server.internal.Authenticator.CACHE_TTL.plusMillis(1));
        assertThat(node.api.call("GET", "/v1/schedules", acme.secret(), null).status())
                .isEqualTo(401);
        assertThat(node.api.call("GET", "/v1/schedules", acme.secret(), null).status())
                .as("a refused key is not cached")
                .isEqualTo(401);
        KeyAdmin.NewKey fresh = admin.create("acme", Mode.TEST);
        assertThat(node.api.call("GET", "/v1/schedules", fresh.secret(), null).status())
                .as("a new key works at once")
                .isEqualTo(200);
    }

    @Test
    void aBootstrapKeyOnAStoreWithoutProjectDefaultIsAddedToANewDefaultProject() throws Exception {
        store = TestStores.sqlite(dir, Clock.systemUTC());
        KeyAdmin admin = new KeyAdmin(store, false, Clock.systemUTC(), new SecureRandom());
        KeyAdmin.NewKey acme = admin.create("acme", Mode.TEST);
        receiver = new LoopbackReceiver();
        node = new TestNode(store, dir, Clock.systemUTC(), 0);
        var listed = node.call("GET", "/v1/schedules", null);
        assertThat(listed.status())
                .as("the bootstrap key works: " + listed.raw())
                .isEqualTo(200);
        assertThat(admin.list("default")).hasSize(1);
        assertThat(node.call("GET", "/v1/signing-secret", null)
                        .json()
                        .get("secret")
                        .asText())
                .startsWith("whsec_");
        String id = node.call(
                        "POST",
                        "/v1/schedules",
                        "{\"endpoint\":\"" + receiver.url("/b") + "\",\"fire_at\":\"2030-01-01T00:00:00Z\"}")
                .json()
                .get("id")
                .asText();
        assertThat(node.api
                        .call("GET", "/v1/schedules/" + id, acme.secret(), null)
                        .status())
                .as("default is its own project")
                .isEqualTo(404);
        assertThat(node.printed)
                .as("no first-start keys: the store was not empty")
                .doesNotContain("sk_live_");
    }

    @Test
    void aBootstrapKeyTheStoreAlreadyHoldsIsLeftWhereItIs() throws Exception {
        store = TestStores.sqlite(dir, Clock.systemUTC());
        KeyAdmin admin = new KeyAdmin(store, false, Clock.systemUTC(), new SecureRandom());
        admin.create("default", Mode.TEST);
        receiver = new LoopbackReceiver();
        node = new TestNode(store, dir, Clock.systemUTC(), 0);
        node.close();
        node = new TestNode(store, dir, Clock.systemUTC(), 0);
        assertThat(admin.list("default")).as("added once, not on every start").hasSize(2);
        assertThat(node.call("GET", "/v1/schedules", null).status()).isEqualTo(200);
    }

    @Test
    void aRecurringScheduleDeliversEachOccurrenceWithItsOwnKeyAndSequence() throws Exception {
        start(Clock.systemUTC(), 0);
        var created = node.call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/r") + "\",\"rrule\":\"FREQ=SECONDLY;INTERVAL=1\","
                        + "\"idempotency_key\":\"tick\",\"header_profile\":\"rrule\",\"timezone\":\"Europe/Paris\"}");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        assertThat(created.json().get("kind").asText()).isEqualTo("rrule");
        assertThat(created.json().get("timezone").asText()).isEqualTo("Europe/Paris");
        String id = created.json().get("id").asText();
        await().atMost(Duration.ofSeconds(15))
                .until(() -> receiver.requests.stream()
                                .filter(r -> id.equals(r.header("Idem-Schedule-Id")))
                                .count()
                        >= 3);
        var got = receiver.requests.stream()
                .filter(r -> id.equals(r.header("Idem-Schedule-Id")))
                .toList();
        for (var r : got.subList(0, 3)) {
            assertThat(r.header("Idempotency-Key")).isEqualTo("tick:" + r.header("Idem-Scheduled-For"));
            assertThat(r.header("X-RRule-Execution-Id")).isEqualTo(r.header("webhook-id"));
            assertThat(r.header("X-RRule-Scheduled-For")).isNotNull();
            assertThat(r.header("X-RRule-Schedule-Id")).isEqualTo(id);
            JsonNode env = ApiClientForTests.JSON.readTree(r.body());
            assertThat(env.get("input").get("type").asText()).isEqualTo("rrule");
            assertThat(env.get("input").get("value").asText()).isEqualTo("FREQ=SECONDLY;INTERVAL=1");
            assertThat(env.get("execution_id").asText()).isEqualTo(r.header("webhook-id"));
        }
        List<Long> sequences = got.stream()
                .map(r -> Long.parseLong(r.header("Idem-Sequence")))
                .sorted()
                .toList();
        assertThat(sequences.subList(0, 3)).containsExactly(1L, 2L, 3L);
        assertThat(got.stream().map(r -> r.header("webhook-id")).distinct().count())
                .isEqualTo(got.size());
        node.call("DELETE", "/v1/schedules/" + id, null);
    }

    @Test
    void patchChangesWhatItNamesKeepsTheRestAndRefusesImmutableFields() throws Exception {
        start(Clock.systemUTC(), 0);
        String id = node.call(
                        "POST",
                        "/v1/schedules",
                        "{\"endpoint\":\"" + receiver.url("/p1") + "\",\"fire_at\":\"2030-01-01T00:00:00Z\","
                                + "\"retry\":{\"max_attempts\":3},\"event_type\":\"a.b\",\"idempotency_key\":\"mine\"}")
                .json()
                .get("id")
                .asText();
        var patched = node.call(
                "PATCH",
                "/v1/schedules/" + id,
                "{\"endpoint\":\"" + receiver.url("/p2")
                        + "\",\"retry\":{\"initial_backoff\":\"10s\"},\"event_type\":null}");
        assertThat(patched.status()).as(patched.raw()).isEqualTo(200);
        assertThat(patched.json().get("endpoint").asText()).endsWith("/p2");
        assertThat(patched.json().get("retry").get("max_attempts").asInt()).isEqualTo(3);
        assertThat(patched.json().get("retry").get("initial_backoff").asText()).isEqualTo("10s");
        assertThat(patched.json().get("event_type").isNull()).isTrue();
        assertThat(patched.json().get("idempotency_key").asText()).isEqualTo("mine");
        var moved = node.call("PATCH", "/v1/schedules/" + id, "{\"fire_at\":\"2031-01-01T00:00:00Z\"}");
        assertThat(moved.json().get("next_fire_at").asText()).isEqualTo("2031-01-01T00:00:00.000Z");
        var immutable = node.call("PATCH", "/v1/schedules/" + id, "{\"idempotency_key\":\"other\"}");
        assertThat(immutable.status()).isEqualTo(400);
        assertThat(immutable.json().get("error").get("code").asText()).isEqualTo("parameter_immutable");
        var bad = node.call("PATCH", "/v1/schedules/" + id, "{\"timeout\":\"2m\"}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(node.call("GET", "/v1/schedules/" + id, null)
                        .json()
                        .get("timeout")
                        .asText())
                .isEqualTo("30s");
        assertThat(node.call("PATCH", "/v1/schedules/" + id, "{\"rrule\":\"FREQ=DAILY\"}")
                        .json()
                        .get("error")
                        .get("code")
                        .asText())
                .isEqualTo("parameter_unexpected");
    }

    @Test
    void flowControlIsKeptShownReplacedByPatchAndRemovedWithNull() throws Exception {
        start(Clock.systemUTC(), 0);
        var created = node.call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/fc") + "\",\"fire_at\":\"2030-01-01T00:00:00Z\","
                        + "\"flow_control\":{\"key\":\"acme-api\",\"parallelism\":4,\"rate\":10}}");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        assertThat(created.json().get("flow_control").toString())
                .isEqualTo("{\"key\":\"acme-api\",\"parallelism\":4,\"rate\":10}");
        String id = created.json().get("id").asText();

        var patched = node.call("PATCH", "/v1/schedules/" + id, "{\"flow_control\":{\"key\":\"other\",\"rate\":2}}");
        assertThat(patched.status()).as(patched.raw()).isEqualTo(200);
        assertThat(patched.json().get("flow_control").toString())
                .isEqualTo("{\"key\":\"other\",\"parallelism\":null,\"rate\":2}");
        var bad =
                node.call("PATCH", "/v1/schedules/" + id, "{\"flow_control\":{\"key\":\"other\",\"parallelism\":-1}}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("error").get("param").asText()).isEqualTo("flow_control.parallelism");
        assertThat(node.call("GET", "/v1/schedules/" + id, null)
                        .json()
                        .get("flow_control")
                        .get("rate")
                        .asInt())
                .isEqualTo(2);

        var removed = node.call("PATCH", "/v1/schedules/" + id, "{\"flow_control\":null}");
        assertThat(removed.json().get("flow_control").isNull()).isTrue();
        assertThat(node.call("GET", "/v1/schedules/" + id, null)
                        .json()
                        .get("flow_control")
                        .isNull())
                .isTrue();
    }

    @Test
    void statsAndMetricsShowThisNodesAttemptsInFlightAndThrottledDestinations() throws Exception {
        start(Clock.systemUTC(), 0);
        var stats = node.call("GET", "/v1/stats", null).json();
        assertThat(stats.get("attempts_in_flight").asInt()).as(stats.toString()).isZero();
        assertThat(stats.get("destinations_throttled").asInt())
                .as(stats.toString())
                .isZero();
        String metrics = node.call("GET", "/metrics", null).raw();
        assertThat(metrics).contains("idem_attempts_in_flight", "idem_destinations_throttled");
    }

    @Test
    void patchingARuleAppliesFromTheNextOccurrence() throws Exception {
        start(Clock.systemUTC(), 0);
        var created = node.call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/rule")
                        + "\",\"rrule\":\"FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0\",\"timezone\":\"America/New_York\"}");
        String id = created.json().get("id").asText();
        Instant before = Instant.parse(created.json().get("next_fire_at").asText());
        var patched = node.call(
                "PATCH",
                "/v1/schedules/" + id,
                "{\"rrule\":\"FREQ=WEEKLY;BYDAY=MO;BYHOUR=18;BYMINUTE=30;BYSECOND=0\",\"timezone\":\"Asia/Tokyo\"}");
        assertThat(patched.status()).as(patched.raw()).isEqualTo(200);
        Instant next = Instant.parse(patched.json().get("next_fire_at").asText());
        var local = next.atZone(java.time.ZoneId.of("Asia/Tokyo"));
        assertThat(local.getDayOfWeek()).isEqualTo(java.time.DayOfWeek.MONDAY);
        assertThat(local.getHour()).isEqualTo(18);
        assertThat(local.getMinute()).isEqualTo(30);
        assertThat(next).isNotEqualTo(before).isAfter(Instant.now().minusSeconds(1));
        var invalid = node.call("PATCH", "/v1/schedules/" + id, "{\"rrule\":\"FREQ=SOMETIMES\"}");
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.json().get("error").get("param").asText()).isEqualTo("rrule");
        var badZone = node.call("PATCH", "/v1/schedules/" + id, "{\"timezone\":\"Mars/Olympus\"}");
        assertThat(badZone.json().get("error").get("param").asText()).isEqualTo("timezone");
    }

    @Test
    void previewNeedsNoKeyAndFollowsTheSpecExample() throws Exception {
        start(Clock.systemUTC(), 0);
        var r = node.api.call(
                "GET",
                "/v1/recurrence/preview?rrule=FREQ=DAILY;COUNT=3&dtstart=1997-09-02T09:00:00&timezone=America/New_York",
                null,
                null);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.json().get("occurrences").get(0).get("local").asText()).isEqualTo("1997-09-02T09:00:00");
        assertThat(r.json().get("occurrences").get(0).get("utc").asText()).isEqualTo("1997-09-02T13:00:00.000Z");
        assertThat(r.json().get("occurrences")).hasSize(3);
        assertThat(r.json().get("stopped_early").asBoolean(true)).isFalse();
        var bad = node.api.call("GET", "/v1/recurrence/preview?cron=61+*+*+*+*", null, null);
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("error").get("param").asText()).isEqualTo("cron");
    }

    @Test
    void previewOfASparseRuleStopsAtTheSearchBudgetWithWhatItFoundAndSaysSo() throws Exception {
        start(Clock.systemUTC(), 0);
        // one occurrence per 86,400 periods: 1,000 of them would cost seconds of CPU for an anonymous caller
        String sparse = "FREQ%3DSECONDLY%3BINTERVAL%3D3601%3BBYHOUR%3D0%3BBYMINUTE%3D0%3BBYSECOND%3D0";
        var r = node.api.call(
                "GET",
                "/v1/recurrence/preview?rrule=" + sparse + "&dtstart=1970-01-01T00:00:01&count=1000",
                null,
                null);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.json().get("stopped_early").asBoolean()).isTrue();
        JsonNode found = r.json().get("occurrences");
        assertThat(found.size()).isBetween(1, 999);
        // each is the grid's midnight, ascending: what it lists is the rule's own beginning
        Instant previous = Instant.EPOCH;
        for (JsonNode o : found) {
            Instant at = Instant.parse(o.get("utc").asText());
            assertThat(at).isAfter(previous);
            assertThat(o.get("local").asText()).endsWith("T00:00:00");
            assertThat((at.getEpochSecond() - 1) % 3601).isZero();
            previous = at;
        }

        // the same rule with fewer asked for is found whole and not marked
        var few = node.api.call(
                "GET", "/v1/recurrence/preview?rrule=" + sparse + "&dtstart=1970-01-01T00:00:01&count=3", null, null);
        assertThat(few.json().get("occurrences")).hasSize(3);
        assertThat(few.json().get("stopped_early").asBoolean(true)).isFalse();
        assertThat(few.json().get("occurrences").get(2)).isEqualTo(found.get(2));

        // a normal rule's 1,000 are all there
        var daily = node.api.call(
                "GET",
                "/v1/recurrence/preview?rrule=FREQ%3DDAILY&dtstart=2027-01-01T09:00:00&timezone=Europe/Paris&count=1000",
                null,
                null);
        assertThat(daily.json().get("occurrences")).hasSize(1000);
        assertThat(daily.json().get("stopped_early").asBoolean(true)).isFalse();
    }
}
