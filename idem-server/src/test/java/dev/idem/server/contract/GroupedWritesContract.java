package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.StoreException;
import dev.idem.server.ApiClientForTests;
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
        return CompletableFuture.supplyAsync(() -> node.api.call("POST", path, KEY, body, headers));
    }

    /** Posts and returns once the request waits in the writer's queue ({@code before} were there already). */
    private CompletableFuture<ApiClientForTests.Reply> queued(
            String path, String body, Map<String, String> h, int before) {
        CompletableFuture<ApiClientForTests.Reply> reply = post(path, body, h);
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
}
