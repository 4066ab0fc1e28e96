package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.client.model.ListParams;
import dev.idem.client.model.Schedule;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.client.testing.LoopbackProxy;
import dev.idem.client.testing.TestNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real node behind a loopback proxy that loses answers after the node has committed: the client's retry carries
 * the same key, the node replays its first answer, and nothing exists twice.
 */
class LostAnswerTest {
    @TempDir
    Path dir;

    TestNode node;
    LoopbackProxy proxy;
    IdemClient idem;
    IdemClient direct;

    @BeforeEach
    void start() throws Exception {
        node = new TestNode(dir);
        proxy = new LoopbackProxy(node.port());
        idem = IdemClient.create(TestNode.config(proxy.url()).maxAttempts(10).build());
        direct = node.client();
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        node.close();
    }

    @Test
    void aCreateWhoseAnswerIsLostAfterTheCommitIsReplayedNotCreatedTwice() {
        ScheduleCreate req = ScheduleCreate.builder("https://example.com/lost")
                .fireAt(Instant.parse("2030-01-01T00:00:00Z"))
                .payload(Map.of("order", "o-1"))
                .build();
        proxy.dropNextAnswers(1);
        IdemResponse<Schedule> r = idem.schedules().createWithResponse(req, RequestOptions.none());

        assertThat(proxy.answersDropped()).isEqualTo(1);
        assertThat(r.attempts()).isEqualTo(2);
        assertThat(r.replayed())
                .as("the second attempt got the first answer back")
                .isTrue();
        List<LoopbackProxy.Request> sent = proxy.requestsWithKey(r.idempotencyKey());
        assertThat(sent)
                .hasSize(2)
                .allMatch(q -> q.method().equals("POST") && q.path().equals("/v1/schedules"));
        assertThat(schedulesTo("https://example.com/lost")).containsExactly(r.value());
    }

    @Test
    void everyMutatingCallSurvivesALostAnswer() {
        Schedule s = direct.schedules()
                .create(ScheduleCreate.builder("https://example.com/m")
                        .fireAt(Instant.parse("2030-01-01T00:00:00Z"))
                        .build());
        proxy.dropNextAnswers(1);
        assertThat(idem.schedules().pause(s.id()).status()).isEqualTo("paused");
        proxy.dropNextAnswers(1);
        assertThat(idem.schedules().resume(s.id()).status()).isEqualTo("active");
        String before = direct.signingSecret().secret();
        proxy.dropNextAnswers(1);
        String rotated = idem.rotateSigningSecret(RequestOptions.none()).secret();
        assertThat(rotated)
                .isNotEqualTo(before)
                .isEqualTo(direct.signingSecret().secret());
        proxy.dropNextAnswers(1);
        assertThat(idem.schedules().delete(s.id()).status()).isEqualTo("deleted");
        assertThat(proxy.answersDropped()).isEqualTo(4);
        assertThat(proxy.requests())
                .filteredOn(q -> q.path().endsWith("/rotate"))
                .hasSize(2)
                .extracting(LoopbackProxy.Request::idempotencyKey)
                .doesNotContainNull()
                .containsOnly(proxy.requests().stream()
                        .filter(q -> q.path().endsWith("/rotate"))
                        .findFirst()
                        .orElseThrow()
                        .idempotencyKey());
    }

    @Test
    void aNodeThatStopsAfterCommittingAndComesBackElsewhereAnswersTheRetryFromItsStore() throws Exception {
        ScheduleCreate req = ScheduleCreate.builder("https://example.com/restart")
                .fireAt(Instant.parse("2030-01-01T00:00:00Z"))
                .build();
        proxy.dropNextAnswerThenRefuse(); // else a retry 200 ms later can reach the old node before it stops
        CompletableFuture<IdemResponse<Schedule>> call =
                CompletableFuture.supplyAsync(() -> IdemClient.create(TestNode.config(proxy.url())
                                .maxAttempts(20)
                                .initialBackoff(Duration.ofMillis(200))
                                .maxBackoff(Duration.ofMillis(1000))
                                .build())
                        .schedules()
                        .createWithResponse(req, RequestOptions.none()));
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> proxy.answersDropped() == 1 || call.isDone());
        assertThat(call).as("the call waits for a node").isNotDone();
        node.restart(); // on a new port: until the proxy is pointed there, the retries are refused
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> proxy.connectionsRefused() >= 1);
        proxy.upstream(node.port());

        IdemResponse<Schedule> r = call.get(60, TimeUnit.SECONDS);
        assertThat(r.replayed()).isTrue();
        assertThat(r.attempts()).isGreaterThanOrEqualTo(2);
        assertThat(schedulesTo("https://example.com/restart")).containsExactly(r.value());
    }

    private List<Schedule> schedulesTo(String endpoint) {
        return node.client().schedules().list(ListParams.builder().limit(100).build()).stream()
                .filter(s -> s.endpoint().equals(endpoint))
                .toList();
    }
}
