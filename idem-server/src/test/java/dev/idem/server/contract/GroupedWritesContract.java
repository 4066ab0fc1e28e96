package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.StoreException;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.IdemServer;
import dev.idem.store.internal.GroupCommitHooks;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Creates and sends whose transactions are grouped (group commit): each request of a group gets the answer it would
 * have got alone, none before its group's COMMIT, and a failed COMMIT fails every request of the group and writes none
 * of it. The first request's group is held in its transaction (a hook before its COMMIT) while the requests under test
 * queue behind it and so form the next group together.
 */
abstract class GroupedWritesContract extends OneNodeContract {
    private CountDownLatch inside;
    private CountDownLatch release;

    @BeforeEach
    void latches() {
        inside = new CountDownLatch(1);
        release = new CountDownLatch(1);
    }

    @AfterEach
    void noHook() {
        GroupCommitHooks.beforeCommit(node.store, null);
        release.countDown();
    }

    private static String schedule(String dedupId) {
        return "{\"endpoint\":\"https://93.184.216.34/grouped/" + UUID.randomUUID()
                + "\",\"fire_at\":\"2035-01-01T00:00:00Z\""
                + (dedupId == null ? "" : ",\"dedup_id\":\"" + dedupId + "\"")
                + "}";
    }

    private CompletableFuture<ApiClientForTests.Reply> post(String path, String body, Map<String, String> headers) {
        return post(node.api, path, body, headers);
    }

    private static CompletableFuture<ApiClientForTests.Reply> post(
            ApiClientForTests api, String path, String body, Map<String, String> headers) {
        return CompletableFuture.supplyAsync(() -> api.call("POST", path, KEY, body, headers));
    }

    /** Posts and returns once the request waits in the writer's queue ({@code before} were there already). */
    private CompletableFuture<ApiClientForTests.Reply> queued(
            String path, String body, Map<String, String> h, int before) {
        return queued(node.api, path, body, h, before);
    }

    /** {@link #queued} through {@code api}: another node's client, on the same store. */
    private CompletableFuture<ApiClientForTests.Reply> queued(
            ApiClientForTests api, String path, String body, Map<String, String> h, int before) {
        CompletableFuture<ApiClientForTests.Reply> reply = post(api, path, body, h);
        while (GroupCommitHooks.queued(node.store) <= before) {
            if (reply.isDone())
                throw new AssertionError(
                        "answered while the writer was held: " + reply.join().raw());
            Thread.onSpinWait();
        }
        return reply;
    }

    /**
     * Holds the first group in its transaction until {@link #release}, then runs {@code atCommit} before its COMMIT
     * and before every later group's. The held request is the only one with an {@code Idempotency-Key}: a key is taken
     * in a write transaction of its own, which on SQLite waits for the held group's write lock.
     */
    private CompletableFuture<ApiClientForTests.Reply> holdFirstGroup(String body, String key, Runnable atCommit)
            throws InterruptedException {
        GroupCommitHooks.beforeCommit(node.store, () -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            atCommit.run();
        });
        CompletableFuture<ApiClientForTests.Reply> held = post("/v1/schedules", body, Map.of("Idempotency-Key", key));
        inside.await();
        return held;
    }

    @Test
    void aDedupHitARefusedMessageAndValidCreatesInOneGroupEachGetTheirOwnAnswer() throws Exception {
        String taken = "grp-" + UUID.randomUUID();
        ApiClientForTests.Reply first = call("POST", "/v1/schedules", schedule(taken));
        assertThat(first.status()).as(first.raw()).isEqualTo(201);
        long regroupedBefore = GroupCommitHooks.counts(node.store)[2];
        String key = "grp-key-" + UUID.randomUUID();
        String keyed = schedule(null);

        var held = holdFirstGroup(keyed, key, () -> {});
        var dedupHit = queued("/v1/schedules", schedule(taken), Map.of(), 0);
        var created = queued("/v1/schedules", schedule(null), Map.of(), 1);
        var refused = queued(
                "/v1/messages",
                "{\"event_type\":\"order.paid\",\"application\":\"app_nobody\",\"payload\":{}}",
                Map.of(),
                2);
        ApiClientForTests.Reply invalid =
                call("POST", "/v1/schedules", "{\"endpoint\":\"not a url\",\"fire_at\":\"2035-01-01T00:00:00Z\"}");
        assertThat(invalid.status())
                .as("refused before the writer, which is still held")
                .isEqualTo(400);
        assertThat(GroupCommitHooks.queued(node.store)).isEqualTo(3);
        release.countDown();

        ApiClientForTests.Reply made = held.get();
        assertThat(made.status()).as(made.raw()).isEqualTo(201);
        ApiClientForTests.Reply dup = dedupHit.get();
        assertThat(dup.status()).as(dup.raw()).isEqualTo(200);
        assertThat(dup.header("Idem-Deduplicated")).isEqualTo("true");
        assertThat(dup.json().get("id").asText())
                .isEqualTo(first.json().get("id").asText());
        assertThat(created.get().status()).as(created.get().raw()).isEqualTo(201);
        ApiClientForTests.Reply bad = refused.get();
        assertThat(bad.status()).as(bad.raw()).isEqualTo(400);
        assertThat(bad.json().at("/error/code").asText()).isEqualTo("application_unknown");
        assertThat(GroupCommitHooks.counts(node.store)[2])
                .as("the refused message rolled its group back, whose requests then ran one by one")
                .isEqualTo(regroupedBefore + 1);
        assertThat(call("GET", "/metrics", null).raw())
                .contains("idem_write_groups_rerun_total " + (regroupedBefore + 1) + ".0")
                .contains("idem_write_grouped_total");

        ApiClientForTests.Reply replay =
                node.api.call("POST", "/v1/schedules", KEY, keyed, Map.of("Idempotency-Key", key));
        assertThat(replay.status()).isEqualTo(201);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.raw()).isEqualTo(made.raw());
    }

    @Test
    void aFailedCommitAnswersEveryRequestOfItsGroup503AndWritesNoneOfIt() throws Exception {
        String dedupId = "grp-" + UUID.randomUUID();
        String key = "grp-key-" + UUID.randomUUID();
        String keyed = schedule(dedupId);
        String other = "grp-" + UUID.randomUUID();
        var withKey = holdFirstGroup(keyed, key, () -> {
            throw new StoreException("the connection broke before COMMIT", null, true);
        });
        var withDedup = queued("/v1/schedules", schedule(other), Map.of(), 0);
        release.countDown();

        for (ApiClientForTests.Reply r : new ApiClientForTests.Reply[] {withKey.get(), withDedup.get()}) {
            assertThat(r.status()).as(r.raw()).isEqualTo(503);
            assertThat(r.header("Retry-After")).isNotNull();
        }
        GroupCommitHooks.beforeCommit(node.store, null);
        ApiClientForTests.Reply again = call("POST", "/v1/schedules", schedule(other));
        assertThat(again.status())
                .as("the dedup_id was not taken: " + again.raw())
                .isEqualTo(201);
        ApiClientForTests.Reply retried =
                node.api.call("POST", "/v1/schedules", KEY, keyed, Map.of("Idempotency-Key", key));
        assertThat(retried.status())
                .as("nothing of the first try was written: " + retried.raw())
                .isEqualTo(201);
        assertThat(retried.header("Idempotent-Replayed"))
                .as("the key was released, not used up")
                .isNull();
    }

    /** A message body of event type {@code type} to {@code application} (null: the project's every endpoint). */
    private static String message(String type, String application, String extra) {
        return "{\"event_type\":\"" + type + "\""
                + (application == null ? "" : ",\"application\":\"" + application + "\"") + ",\"payload\":{\"n\":\""
                + UUID.randomUUID() + "\"}" + extra + "}";
    }

    /** Sends made before a group: the first with a dedup_id, and one whose Idempotency-Key now holds its answer. */
    private record Earlier(
            String dedup,
            ApiClientForTests.Reply firstOfDedup,
            String usedKey,
            String usedBody,
            ApiClientForTests.Reply used) {}

    private Earlier earlier(String type, String app) {
        String dedup = ",\"dedup_id\":\"grp-" + UUID.randomUUID() + "\"";
        ApiClientForTests.Reply firstOfDedup = call("POST", "/v1/messages", message(type, app, dedup));
        assertThat(firstOfDedup.status()).as(firstOfDedup.raw()).isEqualTo(201);
        String usedKey = "grp-used-" + UUID.randomUUID();
        String usedBody = message(type, app, "");
        ApiClientForTests.Reply used =
                node.api.call("POST", "/v1/messages", KEY, usedBody, Map.of("Idempotency-Key", usedKey));
        assertThat(used.status()).as(used.raw()).isEqualTo(201);
        return new Earlier(dedup, firstOfDedup, usedKey, usedBody, used);
    }

    /** An application with one endpoint at the receiver; returns the application's uid. */
    private String applicationWithOneEndpoint() {
        String app = "grp-app-" + UUID.randomUUID();
        assertThat(call("POST", "/v1/applications", "{\"name\":\"G\",\"uid\":\"" + app + "\"}")
                        .status())
                .isEqualTo(201);
        String url = receiver.url("/grouped/" + UUID.randomUUID());
        ApiClientForTests.Reply ep =
                call("POST", "/v1/endpoints", "{\"url\":\"" + url + "\",\"application\":\"" + app + "\"}");
        assertThat(ep.status()).as(ep.raw()).isEqualTo(201);
        return app;
    }

    /**
     * Sends in one group, no one failing: two nodes on one store send with one new Idempotency-Key (the second finds it
     * taken earlier in the group and replays the first's answer once the group committed), a dedup hit gets the first
     * message, and two valid sends each fan out to the application's endpoint; a completed key's replay is answered
     * while the writer is held, from a read.
     */
    @Test
    void sendsInOneGroupWithOneKeyFromTwoNodesADedupHitAndValidOnesEachGetTheirOwnAnswer() throws Exception {
        String app = applicationWithOneEndpoint();
        String type = "grp." + UUID.randomUUID();
        Earlier before = earlier(type, app);
        try (IdemServer second = ContractServer.secondNode(node.store, dir, "grouped-node-2")) {
            ApiClientForTests other = new ApiClientForTests(second.port());
            long rerunBefore = GroupCommitHooks.counts(node.store)[2];

            var held = holdFirstGroup(schedule(null), "grp-key-" + UUID.randomUUID(), () -> {});
            ApiClientForTests.Reply replay = node.api.call(
                    "POST", "/v1/messages", KEY, before.usedBody(), Map.of("Idempotency-Key", before.usedKey()));
            assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(replay.raw()).isEqualTo(before.used().raw());
            String key = "grp-new-" + UUID.randomUUID();
            String keyed = message(type, app, "");
            var first = queued("/v1/messages", keyed, Map.of("Idempotency-Key", key), 0);
            var sameKey = queued(other, "/v1/messages", keyed, Map.of("Idempotency-Key", key), 1);
            var dedupHit = queued("/v1/messages", message(type, app, before.dedup()), Map.of(), 2);
            var valid = queued("/v1/messages", message(type, app, ""), Map.of(), 3);
            var alsoValid = queued(other, "/v1/messages", message(type, app, ""), Map.of(), 4);
            release.countDown();

            assertThat(held.get().status()).isEqualTo(201);
            ApiClientForTests.Reply won = first.get();
            assertThat(won.status()).as(won.raw()).isEqualTo(201);
            assertThat(won.header("Idempotent-Replayed")).isNull();
            ApiClientForTests.Reply lost = sameKey.get();
            assertThat(lost.status()).as(lost.raw()).isEqualTo(201);
            assertThat(lost.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(lost.raw()).isEqualTo(won.raw());
            ApiClientForTests.Reply dup = dedupHit.get();
            assertThat(dup.status()).as(dup.raw()).isEqualTo(200);
            assertThat(dup.header("Idem-Deduplicated")).isEqualTo("true");
            assertThat(dup.json().get("id").asText())
                    .isEqualTo(before.firstOfDedup().json().get("id").asText());
            for (ApiClientForTests.Reply r : new ApiClientForTests.Reply[] {valid.get(), alsoValid.get()}) {
                assertThat(r.status()).as(r.raw()).isEqualTo(201);
                assertThat(r.json().get("deliveries").asInt()).isEqualTo(1);
            }
            assertThat(GroupCommitHooks.counts(node.store)[2])
                    .as("only the dedup hit's reservation, found taken when written, ran the group again (without it)")
                    .isEqualTo(rerunBefore + 1);
            var listed = call("GET", "/v1/messages?limit=100&event_type=" + type, null);
            assertThat(listed.json().get("data")).hasSize(5);
        }
    }

    /**
     * The mix of the first test with sends: a refused send, a dedup hit, a completed key's replay, a new key and a
     * valid send, in one group, each get their own answer; the refused one rolls the group back and each then runs
     * alone. The new key, sent again while its request waits for the writer, is 409 {@code idempotency_in_progress}.
     */
    @Test
    void aRefusedSendADedupHitAKeyReplayANewKeyAndAValidSendInOneGroupEachGetTheirOwnAnswer() throws Exception {
        String app = applicationWithOneEndpoint();
        String type = "grp." + UUID.randomUUID();
        Earlier before = earlier(type, app);
        long rerunBefore = GroupCommitHooks.counts(node.store)[2];

        var held = holdFirstGroup(schedule(null), "grp-key-" + UUID.randomUUID(), () -> {});
        String key = "grp-new-" + UUID.randomUUID();
        String keyed = message(type, app, "");
        var withKey = queued("/v1/messages", keyed, Map.of("Idempotency-Key", key), 0);
        ApiClientForTests.Reply meanwhile =
                node.api.call("POST", "/v1/messages", KEY, keyed, Map.of("Idempotency-Key", key));
        assertThat(meanwhile.status()).as(meanwhile.raw()).isEqualTo(409);
        assertThat(meanwhile.json().at("/error/code").asText())
                .as("the key's request waits in the writer's queue: in progress, answered at once")
                .isEqualTo("idempotency_in_progress");
        var refused = queued("/v1/messages", message(type, "app_nobody", ""), Map.of(), 1);
        var dedupHit = queued("/v1/messages", message(type, app, before.dedup()), Map.of(), 2);
        var valid = queued("/v1/messages", message(type, null, ""), Map.of(), 3);
        ApiClientForTests.Reply replay = node.api.call(
                "POST", "/v1/messages", KEY, before.usedBody(), Map.of("Idempotency-Key", before.usedKey()));
        ApiClientForTests.Reply reuse = node.api.call(
                "POST", "/v1/messages", KEY, message(type, app, ""), Map.of("Idempotency-Key", before.usedKey()));
        release.countDown();

        assertThat(held.get().status()).isEqualTo(201);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.raw()).isEqualTo(before.used().raw());
        assertThat(reuse.status()).as(reuse.raw()).isEqualTo(409);
        assertThat(reuse.json().at("/error/code").asText()).isEqualTo("idempotency_key_reuse");
        ApiClientForTests.Reply made = withKey.get();
        assertThat(made.status()).as(made.raw()).isEqualTo(201);
        ApiClientForTests.Reply bad = refused.get();
        assertThat(bad.status()).as(bad.raw()).isEqualTo(400);
        assertThat(bad.json().at("/error/code").asText()).isEqualTo("application_unknown");
        ApiClientForTests.Reply dup = dedupHit.get();
        assertThat(dup.status()).as(dup.raw()).isEqualTo(200);
        assertThat(dup.json().get("id").asText())
                .isEqualTo(before.firstOfDedup().json().get("id").asText());
        assertThat(valid.get().status()).as(valid.get().raw()).isEqualTo(201);
        assertThat(GroupCommitHooks.counts(node.store)[2]).isEqualTo(rerunBefore + 1);
        ApiClientForTests.Reply again =
                node.api.call("POST", "/v1/messages", KEY, keyed, Map.of("Idempotency-Key", key));
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(again.raw()).isEqualTo(made.raw());
        assertThat(call("GET", "/v1/messages?limit=100&event_type=" + type, null)
                        .json()
                        .get("data"))
                .as("the first two, the keyed one and the valid one: the refused one wrote nothing")
                .hasSize(4);
    }

    @Test
    void aFailedCommitOfAGroupOfSendsAnswersEach503AndWritesNoneOfIt() throws Exception {
        String type = "grp." + UUID.randomUUID();
        String key = "grp-new-" + UUID.randomUUID();
        String keyed = message(type, null, "");
        String deduped = message(type, null, ",\"dedup_id\":\"grp-" + UUID.randomUUID() + "\"");
        var held = holdFirstGroup(schedule(null), "grp-key-" + UUID.randomUUID(), () -> {
            throw new StoreException("the connection broke before COMMIT", null, true);
        });
        var withKey = queued("/v1/messages", keyed, Map.of("Idempotency-Key", key), 0);
        var withDedup = queued("/v1/messages", deduped, Map.of(), 1);
        var plain = queued("/v1/messages", message(type, null, ""), Map.of(), 2);
        release.countDown();

        for (var r : java.util.List.of(held, withKey, withDedup, plain)) {
            assertThat(r.get().status()).as(r.get().raw()).isEqualTo(503);
            assertThat(r.get().header("Retry-After")).isNotNull();
        }
        GroupCommitHooks.beforeCommit(node.store, null);
        assertThat(call("GET", "/v1/messages?event_type=" + type, null).json().get("data"))
                .isEmpty();
        ApiClientForTests.Reply retried =
                node.api.call("POST", "/v1/messages", KEY, keyed, Map.of("Idempotency-Key", key));
        assertThat(retried.status()).as(retried.raw()).isEqualTo(201);
        assertThat(retried.header("Idempotent-Replayed"))
                .as("the key was not taken")
                .isNull();
        ApiClientForTests.Reply dedupAgain = call("POST", "/v1/messages", deduped);
        assertThat(dedupAgain.status())
                .as("the dedup_id was not taken: " + dedupAgain.raw())
                .isEqualTo(201);
    }
}
