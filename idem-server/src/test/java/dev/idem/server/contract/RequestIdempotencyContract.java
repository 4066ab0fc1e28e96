package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.Mode;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.IdemServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/api.md, "Three kinds of idempotency": one key makes one object however many requests race with it;
 * the first response is replayed byte for byte; another request under the key is a 409; an error does
 * not use the key up; keys belong to one (project, mode). (The crash between write and commit and the
 * 24-hour expiry are tested with the server's internals and a moving clock elsewhere.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RequestIdempotencyContract {
    static final int RACERS = 24;

    @TempDir
    static Path dir;

    ContractServer node;
    String otherTest;
    String otherLive;

    abstract Store openStore(Path dir, Clock clock);

    @BeforeAll
    void start() {
        node = ContractServer.start(openStore(dir, Clock.systemUTC()), dir, false);
        String[] keys = node.addProject("other");
        otherTest = keys[0];
        otherLive = keys[1];
    }

    @AfterAll
    void stop() {
        if (node != null) node.close();
    }

    ApiClientForTests.Reply call(String method, String path, String key, String body, String idempotencyKey) {
        return node.api.call(
                method, path, key, body, idempotencyKey == null ? Map.of() : Map.of("Idempotency-Key", idempotencyKey));
    }

    static String unique() {
        return UUID.randomUUID().toString();
    }

    /** A create body no other test uses (its endpoint path is unique), for a schedule that never fires during the test. */
    static String body(String tag) {
        return "{\"endpoint\":\"https://93.184.216.34/" + tag + "\",\"fire_at\":\"2035-01-01T00:00:00Z\"}";
    }

    /** How many schedules of the caller's tenant have this endpoint, paging through the whole list. */
    int schedulesWithEndpoint(String key, String endpoint) {
        int n = 0;
        String cursor = null;
        while (true) {
            var page = node.api.call(
                    "GET", "/v1/schedules?limit=100" + (cursor == null ? "" : "&starting_after=" + cursor), key, null);
            assertThat(page.status()).isEqualTo(200);
            for (JsonNode s : page.json().get("data")) {
                if (s.get("endpoint").asText().equals(endpoint)) n++;
                cursor = s.get("id").asText();
            }
            if (!page.json().get("has_more").asBoolean()) return n;
        }
    }

    /** Sends {@code n} copies of one request at once (released together) and returns every reply. */
    List<ApiClientForTests.Reply> race(
            int n, String method, String path, String key, String body, String idempotencyKey) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch ready = new CountDownLatch(n);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<ApiClientForTests.Reply>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return call(method, path, key, body, idempotencyKey);
                }));
            }
            assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
            go.countDown();
            List<ApiClientForTests.Reply> replies = new ArrayList<>();
            for (var f : futures) replies.add(f.get(60, TimeUnit.SECONDS));
            return replies;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Every reply is either the one first response (one original, the rest replays with
     * {@code Idempotent-Replayed: true}) or a 409 {@code idempotency_in_progress}; returns the first response.
     */
    static ApiClientForTests.Reply assertOneOutcome(List<ApiClientForTests.Reply> replies, int status) {
        List<ApiClientForTests.Reply> answered =
                replies.stream().filter(r -> r.status() != 409).toList();
        for (var r : replies) {
            if (r.status() == 409) {
                assertThat(r.json().at("/error/type").asText()).isEqualTo("idempotency_error");
                assertThat(r.json().at("/error/code").asText()).as(r.raw()).isEqualTo("idempotency_in_progress");
            } else {
                assertThat(r.status()).as(r.raw()).isEqualTo(status);
            }
        }
        assertThat(answered).as("at least the first request is answered").isNotEmpty();
        List<ApiClientForTests.Reply> originals = answered.stream()
                .filter(r -> r.header("Idempotent-Replayed") == null)
                .toList();
        assertThat(originals)
                .as("exactly one request did the work; the others were replays or 409s")
                .hasSize(1);
        ApiClientForTests.Reply first = originals.get(0);
        for (var r : answered) {
            assertThat(r.raw()).isEqualTo(first.raw());
            if (r != first) assertThat(r.header("Idempotent-Replayed")).isEqualTo("true");
        }
        return first;
    }

    @Test
    void concurrentCreatesWithOneKeyCreateExactlyOneSchedule() throws Exception {
        for (int round = 0; round < 3; round++) {
            String tag = "race-" + unique();
            String key = unique();
            var replies = race(RACERS, "POST", "/v1/schedules", ContractServer.TEST_KEY, body(tag), key);
            var first = assertOneOutcome(replies, 201);
            assertThat(schedulesWithEndpoint(ContractServer.TEST_KEY, "https://93.184.216.34/" + tag))
                    .isEqualTo(1);
            // once settled, a retry is a replay of the same bytes and still creates nothing
            var retry = call("POST", "/v1/schedules", ContractServer.TEST_KEY, body(tag), key);
            assertThat(retry.status()).isEqualTo(201);
            assertThat(retry.raw()).isEqualTo(first.raw());
            assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(schedulesWithEndpoint(ContractServer.TEST_KEY, "https://93.184.216.34/" + tag))
                    .isEqualTo(1);
        }
    }

    /** docs/production.md: any number of nodes share one database; a key is taken once whichever nodes the retries reach. */
    @Test
    void concurrentCreatesWithOneKeyOrOneDedupIdAcrossTwoNodesCreateExactlyOneSchedule() throws Exception {
        try (IdemServer second = ContractServer.secondNode(node.store, dir, "contract-node-2")) {
            ApiClientForTests[] clients = {node.api, new ApiClientForTests(second.port())};
            for (int round = 0; round < 2; round++) {
                String tag = "two-nodes-" + unique();
                String key = unique();
                ExecutorService pool = Executors.newFixedThreadPool(RACERS);
                List<ApiClientForTests.Reply> replies = new ArrayList<>();
                try {
                    CountDownLatch go = new CountDownLatch(1);
                    List<Future<ApiClientForTests.Reply>> futures = new ArrayList<>();
                    for (int i = 0; i < RACERS; i++) {
                        ApiClientForTests client = clients[i % 2];
                        futures.add(pool.submit(() -> {
                            go.await();
                            return client.call(
                                    "POST",
                                    "/v1/schedules",
                                    ContractServer.TEST_KEY,
                                    body(tag),
                                    Map.of("Idempotency-Key", key));
                        }));
                    }
                    go.countDown();
                    for (var f : futures) replies.add(f.get(60, TimeUnit.SECONDS));
                } finally {
                    pool.shutdownNow();
                }
                var first = assertOneOutcome(replies, 201);
                assertThat(schedulesWithEndpoint(ContractServer.TEST_KEY, "https://93.184.216.34/" + tag))
                        .isEqualTo(1);
                // and a dedup_id raced over both nodes, without Idempotency-Key
                String dedup = unique();
                String dedupTag = tag + "-dedup";
                List<Future<ApiClientForTests.Reply>> dedupFutures = new ArrayList<>();
                ExecutorService dedupPool = Executors.newFixedThreadPool(RACERS);
                List<ApiClientForTests.Reply> dedupReplies = new ArrayList<>();
                try {
                    CountDownLatch go = new CountDownLatch(1);
                    for (int i = 0; i < RACERS; i++) {
                        ApiClientForTests client = clients[i % 2];
                        dedupFutures.add(dedupPool.submit(() -> {
                            go.await();
                            return client.call(
                                    "POST",
                                    "/v1/schedules",
                                    ContractServer.TEST_KEY,
                                    body(dedupTag).replace("}", ",\"dedup_id\":\"" + dedup + "\"}"),
                                    Map.of());
                        }));
                    }
                    go.countDown();
                    for (var f : dedupFutures) dedupReplies.add(f.get(60, TimeUnit.SECONDS));
                } finally {
                    dedupPool.shutdownNow();
                }
                assertThat(dedupReplies)
                        .allSatisfy(r -> assertThat(r.status()).as(r.raw()).isIn(200, 201));
                assertThat(dedupReplies).filteredOn(r -> r.status() == 201).hasSize(1);
                assertThat(dedupReplies.stream()
                                .map(r -> r.json().get("id").asText())
                                .distinct())
                        .hasSize(1);
                assertThat(schedulesWithEndpoint(ContractServer.TEST_KEY, "https://93.184.216.34/" + dedupTag))
                        .isEqualTo(1);
                for (ApiClientForTests c : clients) {
                    var retry = c.call(
                            "POST",
                            "/v1/schedules",
                            ContractServer.TEST_KEY,
                            body(tag),
                            Map.of("Idempotency-Key", key));
                    assertThat(retry.raw()).isEqualTo(first.raw());
                    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
                }
            }
        }
    }

    @Test
    void concurrentCreatesWithOneKeyAndTwoBodiesCreateExactlyOneSchedule() throws Exception {
        String tagA = "race-a-" + unique();
        String tagB = "race-b-" + unique();
        String key = unique();
        ExecutorService pool = Executors.newFixedThreadPool(RACERS);
        List<ApiClientForTests.Reply> replies = new ArrayList<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<ApiClientForTests.Reply>> futures = new ArrayList<>();
            for (int i = 0; i < RACERS; i++) {
                String body = body(i % 2 == 0 ? tagA : tagB);
                futures.add(pool.submit(() -> {
                    go.await();
                    return call("POST", "/v1/schedules", ContractServer.TEST_KEY, body, key);
                }));
            }
            go.countDown();
            for (var f : futures) replies.add(f.get(60, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
        List<ApiClientForTests.Reply> created =
                replies.stream().filter(r -> r.status() == 201).toList();
        assertThat(replies).allSatisfy(r -> {
            assertThat(r.status()).as(r.raw()).isIn(201, 409);
            if (r.status() == 409)
                assertThat(r.json().at("/error/code").asText())
                        .isIn("idempotency_in_progress", "idempotency_key_reuse");
        });
        assertThat(created).isNotEmpty();
        assertThat(created.stream().filter(r -> r.header("Idempotent-Replayed") == null))
                .hasSize(1);
        assertThat(created.stream().map(ApiClientForTests.Reply::raw).distinct())
                .hasSize(1);
        int a = schedulesWithEndpoint(ContractServer.TEST_KEY, "https://93.184.216.34/" + tagA);
        int b = schedulesWithEndpoint(ContractServer.TEST_KEY, "https://93.184.216.34/" + tagB);
        assertThat(a + b).as("one key, two bodies: one schedule in all").isEqualTo(1);
    }

    @Test
    void concurrentCreatesWithOneDedupIdCreateOneSchedule() throws Exception {
        String tag = "dedup-race-" + unique();
        String dedup = unique();
        var replies = race(
                RACERS,
                "POST",
                "/v1/schedules",
                ContractServer.TEST_KEY,
                body(tag).replace("}", ",\"dedup_id\":\"" + dedup + "\"}"),
                null);
        assertThat(replies).allSatisfy(r -> assertThat(r.status()).as(r.raw()).isIn(200, 201));
        assertThat(replies).filteredOn(r -> r.status() == 201).hasSize(1);
        String id = replies.stream()
                .filter(r -> r.status() == 201)
                .findFirst()
                .orElseThrow()
                .json()
                .get("id")
                .asText();
        for (var r : replies) {
            assertThat(r.json().get("id").asText()).isEqualTo(id);
            if (r.status() == 200) assertThat(r.header("Idem-Deduplicated")).isEqualTo("true");
        }
        assertThat(schedulesWithEndpoint(ContractServer.TEST_KEY, "https://93.184.216.34/" + tag))
                .isEqualTo(1);
    }

    /**
     * A request whose key is held by one still running is answered 409 {@code idempotency_in_progress} at once, on
     * every store: not made to wait until the first commits and then given its replay. The first request is played
     * by the test: its in-progress record is committed, and its mutation's transaction (which completes the record,
     * as a real one does) stays open, holding SQLite's single writer, until the second request has its answer.
     */
    @Test
    void aRequestMeetingItsKeyInProgressIs409AtOnceWhileTheFirstIsStillCommitting() throws Exception {
        String key = unique();
        Tenant tenant = new Tenant(node.defaultProjectId(), Mode.TEST);
        Instant now = Instant.now();
        node.store.useTransaction(tx -> tx.idempotency()
                .tryInsert(new IdempotencyRecord(tenant, key, "first", now, now.plusSeconds(30), null, null)));
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService first = Executors.newSingleThreadExecutor();
        try {
            Future<?> committing = first.submit(() -> node.store.useTransaction(tx -> {
                tx.idempotency().complete(tenant, key, 201, "{}\n{}".getBytes(StandardCharsets.UTF_8));
                holding.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<ApiClientForTests.Reply> second = CompletableFuture.supplyAsync(
                    () -> call("POST", "/v1/schedules", ContractServer.TEST_KEY, body("held-" + key), key));
            ApiClientForTests.Reply reply;
            try {
                reply = second.get(8, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                reply = null;
            } finally {
                release.countDown();
            }
            committing.get(30, TimeUnit.SECONDS);
            assertThat(reply)
                    .as("the second request waited for the first's transaction instead of answering")
                    .isNotNull();
            assertThat(reply.status()).as(reply.raw()).isEqualTo(409);
            assertThat(reply.json().at("/error/code").asText()).isEqualTo("idempotency_in_progress");
            assertThat(second.get().header("Idempotent-Replayed")).isNull();
        } finally {
            release.countDown();
            first.shutdownNow();
        }
    }

    @Test
    void concurrentRotationsWithOneKeyRotateOnce() throws Exception {
        String before = call("GET", "/v1/signing-secret", otherLive, null, null)
                .json()
                .get("secret")
                .asText();
        var first = assertOneOutcome(race(16, "POST", "/v1/signing-secret/rotate", otherLive, null, unique()), 200);
        String after = call("GET", "/v1/signing-secret", otherLive, null, null)
                .json()
                .get("secret")
                .asText();
        assertThat(after)
                .isNotEqualTo(before)
                .isEqualTo(first.json().get("secret").asText());
    }

    @Test
    void concurrentPatchesWithOneKeyApplyOnce() throws Exception {
        String id = call("POST", "/v1/schedules", ContractServer.TEST_KEY, body("patch-" + unique()), null)
                .json()
                .get("id")
                .asText();
        var first = assertOneOutcome(
                race(16, "PATCH", "/v1/schedules/" + id, ContractServer.TEST_KEY, "{\"timeout\":\"7s\"}", unique()),
                200);
        assertThat(first.json().get("timeout").asText()).isEqualTo("7s");
        assertThat(first.json().get("updated_at").asText())
                .isEqualTo(call("GET", "/v1/schedules/" + id, ContractServer.TEST_KEY, null, null)
                        .json()
                        .get("updated_at")
                        .asText());
    }

    @Test
    void theSameKeyAndBodyReplayTheFirstResponseByteForByteOnEveryMutation() {
        String key = ContractServer.TEST_KEY;
        String create = body("replay-" + unique());
        String ik = unique();
        var first = call("POST", "/v1/schedules", key, create, ik);
        assertThat(first.status()).isEqualTo(201);
        assertThat(first.header("Idempotent-Replayed")).isNull();
        String id = first.json().get("id").asText();
        // the schedule changes meanwhile; the replay is still the first answer, not the current state
        assertThat(call("POST", "/v1/schedules/" + id + "/pause", key, null, null)
                        .status())
                .isEqualTo(200);
        var replay = call("POST", "/v1/schedules", key, create, ik);
        assertThat(replay.status()).isEqualTo(201);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.raw()).isEqualTo(first.raw());
        assertThat(replay.header("Content-Type")).startsWith("application/json");
        assertThat(replay.header("Request-Id")).isNotEqualTo(first.header("Request-Id"));

        for (String[] m : List.of(
                new String[] {"POST", "/v1/schedules/" + id + "/resume", null},
                new String[] {"PATCH", "/v1/schedules/" + id, "{\"timeout\":\"9s\"}"},
                new String[] {"POST", "/v1/schedules/" + id + "/pause", null},
                new String[] {"POST", "/v1/signing-secret/rotate", null},
                new String[] {"DELETE", "/v1/schedules/" + id, null})) {
            String mk = unique();
            var a = call(m[0], m[1], key, m[2], mk);
            assertThat(a.status()).as("%s %s -> %s", m[0], m[1], a.raw()).isEqualTo(200);
            var b = call(m[0], m[1], key, m[2], mk);
            assertThat(b.status()).isEqualTo(200);
            assertThat(b.raw()).as("%s %s replayed", m[0], m[1]).isEqualTo(a.raw());
            assertThat(b.header("Idempotent-Replayed")).isEqualTo("true");
        }
        assertThat(schedulesWithEndpoint(
                        key, "https://93.184.216.34/" + create.split("/")[3].split("\"")[0]))
                .isEqualTo(1);
    }

    @Test
    void aReplayedDedupAnswerKeepsItsIdemDeduplicatedHeader() {
        String dedup = unique();
        var original = call(
                "POST",
                "/v1/schedules",
                ContractServer.TEST_KEY,
                body("dedup-" + unique()).replace("}", ",\"dedup_id\":\"" + dedup + "\"}"),
                null);
        assertThat(original.status()).isEqualTo(201);
        String again =
                "{\"endpoint\":\"https://93.184.216.34/dedup-again\",\"fire_at\":\"2035-01-01T00:00:00Z\",\"dedup_id\":\""
                        + dedup + "\"}";
        String ik = unique();
        var deduplicated = call("POST", "/v1/schedules", ContractServer.TEST_KEY, again, ik);
        assertThat(deduplicated.status()).isEqualTo(200);
        assertThat(deduplicated.header("Idem-Deduplicated")).isEqualTo("true");
        var replay = call("POST", "/v1/schedules", ContractServer.TEST_KEY, again, ik);
        assertThat(replay.status()).isEqualTo(200);
        assertThat(replay.raw()).isEqualTo(deduplicated.raw());
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        // the first response is replayed whole: its own headers (ApiResponse: "replayed too") come back with it
        assertThat(replay.header("Idem-Deduplicated"))
                .as("Idem-Deduplicated on the replay of a deduplicated create")
                .isEqualTo("true");
    }

    @Test
    void theSameKeyWithAnotherRequestIs409KeyReuseAndChangesNothing() {
        String key = ContractServer.TEST_KEY;
        String tag = "reuse-" + unique();
        String ik = unique();
        var first = call("POST", "/v1/schedules", key, body(tag), ik);
        assertThat(first.status()).isEqualTo(201);
        String id = first.json().get("id").asText();
        List<String[]> others = List.of(
                new String[] {"POST", "/v1/schedules", body(tag + "-other")},
                new String[] {"POST", "/v1/schedules", body(tag).replace("}", " }")},
                new String[] {"POST", "/v1/schedules/" + id + "/pause", null},
                new String[] {"PATCH", "/v1/schedules/" + id, "{\"timeout\":\"9s\"}"},
                new String[] {"DELETE", "/v1/schedules/" + id, null},
                new String[] {"POST", "/v1/signing-secret/rotate", null});
        String secret = call("GET", "/v1/signing-secret", key, null, null)
                .json()
                .get("secret")
                .asText();
        for (String[] o : others) {
            var r = call(o[0], o[1], key, o[2], ik);
            assertThat(r.status()).as("%s %s -> %s", o[0], o[1], r.raw()).isEqualTo(409);
            assertThat(r.json().at("/error/type").asText()).isEqualTo("idempotency_error");
            assertThat(r.json().at("/error/code").asText()).isEqualTo("idempotency_key_reuse");
            assertThat(r.json().at("/error/request_id").asText()).isEqualTo(r.header("Request-Id"));
        }
        JsonNode now = call("GET", "/v1/schedules/" + id, key, null, null).json();
        assertThat(now.get("status").asText()).isEqualTo("active");
        assertThat(now.get("timeout").asText()).isEqualTo("30s");
        assertThat(call("GET", "/v1/signing-secret", key, null, null)
                        .json()
                        .get("secret")
                        .asText())
                .isEqualTo(secret);
        assertThat(schedulesWithEndpoint(key, "https://93.184.216.34/" + tag + "-other"))
                .isZero();
        // and the key still replays its own first answer
        assertThat(call("POST", "/v1/schedules", key, body(tag), ik).raw()).isEqualTo(first.raw());
    }

    @Test
    void anErrorAnswerDoesNotUseTheKeyUp() {
        String key = ContractServer.TEST_KEY;
        String tag = "burn-" + unique();
        // a 400 from validation
        String ik = unique();
        var bad = call(
                "POST",
                "/v1/schedules",
                key,
                "{\"endpoint\":\"https://93.184.216.34/" + tag + "\",\"colour\":\"red\"}",
                ik);
        assertThat(bad.status()).isEqualTo(400);
        var badAgain = call(
                "POST",
                "/v1/schedules",
                key,
                "{\"endpoint\":\"https://93.184.216.34/" + tag + "\",\"colour\":\"red\"}",
                ik);
        assertThat(badAgain.status()).isEqualTo(400);
        assertThat(badAgain.header("Idempotent-Replayed")).isNull();
        var good = call("POST", "/v1/schedules", key, body(tag), ik);
        assertThat(good.status()).as(good.raw()).isEqualTo(201);
        assertThat(good.header("Idempotent-Replayed")).isNull();
        // a 400 from an endpoint that is not allowed (checked with the key held)
        String ik2 = unique();
        assertThat(call("POST", "/v1/schedules", key, "{\"endpoint\":\"http://10.0.0.1/" + tag + "\"}", ik2)
                        .status())
                .isEqualTo(400);
        assertThat(call("POST", "/v1/schedules", key, body(tag + "-2"), ik2).status())
                .isEqualTo(201);
        // a 404 from inside the mutation
        String ik3 = unique();
        assertThat(call("POST", "/v1/schedules/sch_nosuchschedule/pause", key, null, ik3)
                        .status())
                .isEqualTo(404);
        var afterNotFound = call("POST", "/v1/schedules", key, body(tag + "-3"), ik3);
        assertThat(afterNotFound.status()).isEqualTo(201);
        assertThat(afterNotFound.header("Idempotent-Replayed")).isNull();
        // a 400 raised inside the mutation (a deleted schedule cannot be paused)
        String id = afterNotFound.json().get("id").asText();
        assertThat(call("DELETE", "/v1/schedules/" + id, key, null, null).status())
                .isEqualTo(200);
        String ik4 = unique();
        assertThat(call("POST", "/v1/schedules/" + id + "/pause", key, null, ik4)
                        .status())
                .isEqualTo(400);
        assertThat(call("POST", "/v1/schedules", key, body(tag + "-4"), ik4).status())
                .isEqualTo(201);
        assertThat(schedulesWithEndpoint(key, "https://93.184.216.34/" + tag)).isEqualTo(1);
    }

    @Test
    void keysArePerProjectAndMode() {
        String tag = "scope-" + unique();
        String ik = unique();
        List<String> ids = new ArrayList<>();
        for (String key : List.of(ContractServer.TEST_KEY, node.liveKey, otherTest, otherLive)) {
            var r = call("POST", "/v1/schedules", key, body(tag), ik);
            assertThat(r.status()).as(r.raw()).isEqualTo(201);
            assertThat(r.header("Idempotent-Replayed"))
                    .as("the same key in another project or mode is a new key")
                    .isNull();
            ids.add(r.json().get("id").asText());
            assertThat(schedulesWithEndpoint(key, "https://93.184.216.34/" + tag))
                    .isEqualTo(1);
        }
        assertThat(ids).doesNotHaveDuplicates();
        int i = 0;
        for (String key : List.of(ContractServer.TEST_KEY, node.liveKey, otherTest, otherLive)) {
            var r = call("POST", "/v1/schedules", key, body(tag), ik);
            assertThat(r.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(r.json().get("id").asText()).isEqualTo(ids.get(i++));
        }
        // a body that differs in another tenant is not a reuse there either
        assertThat(call("POST", "/v1/schedules", otherLive, body(tag + "-x"), unique())
                        .status())
                .isEqualTo(201);
    }

    @Test
    void theKeyIsOneTo255Characters() {
        String tag = "length-" + unique();
        var tooLong = call("POST", "/v1/schedules", ContractServer.TEST_KEY, body(tag), "k".repeat(256));
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.json().at("/error/code").asText()).isEqualTo("idempotency_key_invalid");
        assertThat(tooLong.json().at("/error/param").asText()).isEqualTo("Idempotency-Key");
        assertThat(schedulesWithEndpoint(ContractServer.TEST_KEY, "https://93.184.216.34/" + tag))
                .isZero();
        String longest = "k".repeat(254) + unique().substring(0, 1);
        assertThat(call("POST", "/v1/schedules", ContractServer.TEST_KEY, body(tag), longest)
                        .status())
                .isEqualTo(201);
        assertThat(call("POST", "/v1/schedules", ContractServer.TEST_KEY, body(tag), longest)
                        .header("Idempotent-Replayed"))
                .isEqualTo("true");
        assertThat(schedulesWithEndpoint(ContractServer.TEST_KEY, "https://93.184.216.34/" + tag))
                .isEqualTo(1);
    }
}
