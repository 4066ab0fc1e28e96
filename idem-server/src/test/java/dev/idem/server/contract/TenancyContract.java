package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.LoopbackReceiver;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/api.md, "Keys, tenancy, rate limits": every object lives in one (project, mode) and is invisible from any other: 404 (never
 * 403, never its data) on every endpoint that takes an id or a cursor, absent from lists, untouched by
 * foreign mutations; signing secrets, dedup ids and Idempotency-Keys are per (project, mode) too.
 * Four tenants: project {@code default} test and live, and project {@code other} test and live.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TenancyContract {
    @TempDir
    static Path dir;

    ContractServer node;
    LoopbackReceiver receiver;
    /** tenant name -> key */
    final Map<String, String> keys = new LinkedHashMap<>();

    abstract Store openStore(Path dir, Clock clock);

    /** What one tenant owns. */
    record Owned(String key, String scheduleId, String deliveredScheduleId, String deliveryId, String secret) {}

    final List<Owned> owned = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        receiver = new LoopbackReceiver();
        node = ContractServer.start(openStore(dir, Clock.systemUTC()), dir, true);
        String[] other = node.addProject("other");
        keys.put("default/test", ContractServer.TEST_KEY);
        keys.put("default/live", node.liveKey);
        keys.put("other/test", other[0]);
        keys.put("other/live", other[1]);
        for (String key : keys.values()) owned.add(populate(key));
    }

    @AfterAll
    void stop() {
        if (node != null) node.close();
        if (receiver != null) receiver.close();
    }

    ApiClientForTests.Reply call(String method, String path, String key, String body) {
        return node.api.call(method, path, key, body);
    }

    /** A far-future schedule, and a schedule whose delivery went out (succeeded), made with {@code key}. */
    private Owned populate(String key) {
        var far = call(
                "POST",
                "/v1/schedules",
                key,
                "{\"endpoint\":\"" + receiver.url("/far")
                        + "\",\"fire_at\":\"2035-01-01T00:00:00Z\",\"dedup_id\":\"shared-dedup\"}");
        assertThat(far.status()).as(far.raw()).isEqualTo(201);
        var now = call(
                "POST",
                "/v1/schedules",
                key,
                "{\"endpoint\":\"" + receiver.url("/now") + "\",\"payload\":{\"secret\":\"" + key + "\"}}");
        assertThat(now.status()).as(now.raw()).isEqualTo(201);
        String nowId = now.json().get("id").asText();
        String[] delivery = new String[1];
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            JsonNode data = call("GET", "/v1/deliveries?schedule_id=" + nowId, key, null)
                    .json()
                    .get("data");
            if (data.isEmpty() || !data.get(0).get("status").asText().equals("succeeded")) return false;
            delivery[0] = data.get(0).get("id").asText();
            return true;
        });
        String secret = call("GET", "/v1/signing-secret", key, null)
                .json()
                .get("secret")
                .asText();
        return new Owned(key, far.json().get("id").asText(), nowId, delivery[0], secret);
    }

    /** A 404 in the error shape, carrying nothing of the object but the id the caller gave. */
    private void assertNotFound(ApiClientForTests.Reply r, String what, Owned o) {
        assertThat(r.status()).as("%s -> %s", what, r.raw()).isEqualTo(404);
        JsonNode e = r.json().get("error");
        assertThat(r.json().size()).isEqualTo(1);
        assertThat(e.get("type").asText()).isEqualTo("not_found_error");
        assertThat(e.get("code").asText()).isEqualTo("resource_missing");
        List<String> forbidden =
                new ArrayList<>(List.of(o.key(), o.secret(), "/far", "/now", "2035", "succeeded", "active"));
        for (String id : List.of(o.scheduleId(), o.deliveredScheduleId(), o.deliveryId()))
            if (!what.contains(id)) forbidden.add(id);
        assertThat(r.raw()).doesNotContain(forbidden);
    }

    @Test
    void everyEndpointTakingAnIdAnswers404ToEveryOtherTenant() {
        for (Owned o : owned) {
            for (String viewer : keys.values()) {
                if (viewer.equals(o.key())) continue;
                List<String[]> calls = List.of(
                        new String[] {"GET", "/v1/schedules/" + o.scheduleId(), null},
                        new String[] {"PATCH", "/v1/schedules/" + o.scheduleId(), "{\"timeout\":\"5s\"}"},
                        new String[] {
                            "PATCH", "/v1/schedules/" + o.scheduleId(), "{\"endpoint\":\"https://example.com/stolen\"}"
                        },
                        new String[] {"POST", "/v1/schedules/" + o.scheduleId() + "/pause", null},
                        new String[] {"POST", "/v1/schedules/" + o.scheduleId() + "/resume", null},
                        new String[] {"DELETE", "/v1/schedules/" + o.scheduleId(), null},
                        new String[] {"GET", "/v1/schedules?starting_after=" + o.scheduleId(), null},
                        new String[] {"GET", "/v1/deliveries/" + o.deliveryId(), null},
                        new String[] {"POST", "/v1/deliveries/" + o.deliveryId() + "/replay", null},
                        new String[] {"GET", "/v1/deliveries?starting_after=" + o.deliveryId(), null});
                for (String[] c : calls) {
                    String what = c[0] + " " + c[1] + " as " + viewer.substring(0, 12) + "…";
                    assertNotFound(call(c[0], c[1], viewer, c[2]), what, o);
                }
            }
        }
        // nothing a foreign tenant tried changed anything
        for (Owned o : owned) {
            JsonNode s = call("GET", "/v1/schedules/" + o.scheduleId(), o.key(), null)
                    .json();
            assertThat(s.get("status").asText()).isEqualTo("active");
            assertThat(s.get("timeout").asText()).isEqualTo("30s");
            assertThat(s.get("endpoint").asText()).isEqualTo(receiver.url("/far"));
            JsonNode d = call("GET", "/v1/deliveries/" + o.deliveryId(), o.key(), null)
                    .json();
            assertThat(d.get("status").asText()).isEqualTo("succeeded");
            assertThat(d.get("attempts")).hasSize(1);
        }
    }

    @Test
    void listsShowOnlyTheCallersOwnObjects() {
        for (Owned o : owned) {
            JsonNode schedules =
                    call("GET", "/v1/schedules?limit=100", o.key(), null).json().get("data");
            assertThat(schedules.findValuesAsText("id"))
                    .containsExactlyInAnyOrder(o.scheduleId(), o.deliveredScheduleId());
            assertThat(schedules.findValuesAsText("livemode"))
                    .containsOnly(Boolean.toString(o.key().startsWith("sk_live_")));
            JsonNode deliveries = call("GET", "/v1/deliveries?limit=100", o.key(), null)
                    .json()
                    .get("data");
            // the far one-shot's delivery is written when it is created, due in 2035
            assertThat(deliveries.findValuesAsText("schedule_id"))
                    .containsExactlyInAnyOrder(o.scheduleId(), o.deliveredScheduleId());
            assertThat(deliveries.findValuesAsText("id"))
                    .contains(o.deliveryId())
                    .hasSize(2);
            for (String status : List.of("active", "completed"))
                assertThat(call("GET", "/v1/schedules?limit=100&status=" + status, o.key(), null)
                                .json()
                                .get("data")
                                .findValuesAsText("id"))
                        .isSubsetOf(o.scheduleId(), o.deliveredScheduleId());
            for (Owned foreign : owned) {
                if (foreign == o) continue;
                var filtered =
                        call("GET", "/v1/deliveries?schedule_id=" + foreign.deliveredScheduleId(), o.key(), null);
                assertThat(filtered.status()).isIn(200, 404);
                if (filtered.status() == 200)
                    assertThat(filtered.json().get("data")).isEmpty();
                else assertNotFound(filtered, "deliveries of a foreign schedule", foreign);
            }
        }
    }

    @Test
    void signingSecretsArePerTenantAndRotationTouchesOnlyTheCallers() {
        List<String> secrets = owned.stream().map(Owned::secret).toList();
        assertThat(secrets).doesNotHaveDuplicates();
        Owned rotator = owned.get(2);
        var rotated = call("POST", "/v1/signing-secret/rotate", rotator.key(), null);
        assertThat(rotated.status()).isEqualTo(200);
        for (Owned o : owned) {
            String now = call("GET", "/v1/signing-secret", o.key(), null)
                    .json()
                    .get("secret")
                    .asText();
            if (o == rotator)
                assertThat(now).isEqualTo(rotated.json().get("secret").asText()).isNotEqualTo(o.secret());
            else assertThat(now).isEqualTo(o.secret());
        }
    }

    @Test
    void aDedupIdIsPerTenant() {
        // every tenant created a schedule with dedup_id "shared-dedup": four different schedules
        assertThat(owned.stream().map(Owned::scheduleId).distinct()).hasSize(owned.size());
        for (Owned o : owned) {
            var again = call(
                    "POST",
                    "/v1/schedules",
                    o.key(),
                    "{\"endpoint\":\"https://example.com\",\"fire_at\":\"2035-01-01T00:00:00Z\",\"dedup_id\":\"shared-dedup\"}");
            assertThat(again.status()).isEqualTo(200);
            assertThat(again.json().get("id").asText()).isEqualTo(o.scheduleId());
        }
    }

    @Test
    void statsCountOnlyTheCallersOwnDeliveries() throws Exception {
        // a project of its own, so the other tests' lists stay as they expect
        String[] k = node.addProject("stats");
        try (LoopbackReceiver refusing = new LoopbackReceiver()) {
            refusing.status.set(500);
            String id = call(
                            "POST",
                            "/v1/schedules",
                            k[0],
                            "{\"endpoint\":\"" + refusing.url("/dead") + "\",\"retry\":{\"max_attempts\":1}}")
                    .json()
                    .get("id")
                    .asText();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> call("GET", "/v1/deliveries?status=dead&schedule_id=" + id, k[0], null)
                                    .json()
                                    .get("data")
                                    .size()
                            == 1);
        }
        JsonNode own = call("GET", "/v1/stats", k[0], null).json();
        assertThat(own.get("dead").asLong()).as(own.toString()).isEqualTo(1);
        assertThat(own.get("died").asLong()).as(own.toString()).isEqualTo(1);
        assertThat(own.get("succeeded").asLong()).as(own.toString()).isZero();
        List<String> others = new ArrayList<>(keys.values());
        others.add(k[1]);
        for (String key : others) {
            var r = call("GET", "/v1/stats", key, null);
            assertThat(r.status()).isEqualTo(200);
            // each of the four tenants has one succeeded delivery of its own: more would mean counting across tenants
            assertThat(r.json().get("succeeded").asLong()).as(r.raw()).isLessThanOrEqualTo(1);
            assertThat(r.json().get("dead").asLong()).as(r.raw()).isZero();
            assertThat(r.json().get("died").asLong()).as(r.raw()).isZero();
        }
    }

    @Test
    void aRevokedKeyIs401WithinTheKeyCacheTimeOnEveryEndpointWhileItsSiblingKeepsWorking() {
        String[] k = node.addProject("revoking");
        String id = call(
                        "POST",
                        "/v1/schedules",
                        k[0],
                        "{\"endpoint\":\"" + receiver.url("/rev") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}")
                .json()
                .get("id")
                .asText();
        assertThat(call("GET", "/v1/schedules/" + id, k[0], null).status()).isEqualTo(200);
        String keyId = node.store
                .inTransaction(tx -> tx.apiKeys().findByHash(dev.idem.server.internal.ApiKeys.hash(k[0])))
                .orElseThrow()
                .id();
        boolean revoked = node.store.inTransaction(tx -> tx.apiKeys().revoke(keyId, java.time.Instant.now()));
        assertThat(revoked).isTrue();
        // a node trusts a key it found active for Authenticator.CACHE_TTL: revocation takes effect within it
        long revokedAt = System.nanoTime();
        await().atMost(dev.idem.server.internal.Authenticator.CACHE_TTL.plusSeconds(2))
                .until(() -> call("GET", "/v1/schedules/" + id, k[0], null).status() == 401);
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - revokedAt))
                .isLessThan(dev.idem.server.internal.Authenticator.CACHE_TTL.plusSeconds(2));
        for (String[] c : List.of(
                new String[] {"GET", "/v1/schedules/" + id},
                new String[] {"GET", "/v1/schedules"},
                new String[] {"POST", "/v1/schedules"},
                new String[] {"PATCH", "/v1/schedules/" + id},
                new String[] {"DELETE", "/v1/schedules/" + id},
                new String[] {"POST", "/v1/schedules/" + id + "/pause"},
                new String[] {"GET", "/v1/deliveries"},
                new String[] {"GET", "/v1/signing-secret"},
                new String[] {"POST", "/v1/signing-secret/rotate"},
                new String[] {"GET", "/v1/stats"})) {
            var r = call(c[0], c[1], k[0], c[0].equals("GET") ? null : "{}");
            assertThat(r.status())
                    .as("%s %s with a revoked key -> %s", c[0], c[1], r.raw())
                    .isEqualTo(401);
            assertThat(r.json().at("/error/type").asText()).isEqualTo("authentication_error");
            assertThat(r.raw()).doesNotContain(id.substring(4), "2035");
        }
        assertThat(call("GET", "/v1/schedules", k[1], null).status()).isEqualTo(200);
        assertThat(call("GET", "/v1/schedules/" + id, k[1], null).status()).isEqualTo(404);
    }

    @Test
    void aRevokedOrUnknownKeySeesNothingAnd401s() {
        for (Owned o : owned) {
            var r = call("GET", "/v1/schedules/" + o.scheduleId(), o.key() + "x", null);
            assertThat(r.status()).isEqualTo(401);
            assertThat(r.raw()).doesNotContain(o.scheduleId().substring(4), "2035");
        }
    }
}
