package dev.idem.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.client.IdemClient;
import dev.idem.client.IdemClientConfig;
import dev.idem.client.IdemResponse;
import dev.idem.client.RequestOptions;
import dev.idem.client.model.ListParams;
import dev.idem.client.model.Schedule;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.client.testing.LoopbackProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client alone against the fat jar: the node commits a create and is killed (SIGKILL) before its answer leaves;
 * the client keeps retrying with the same key through the outage, the node comes back on its data directory, and the
 * retry is answered from the stored response.
 */
class ClientAgainstKilledNodeIT {
    @TempDir
    Path dir;

    @Test
    void aCreateCommittedByANodeKilledBeforeItAnsweredIsReplayedByTheRestartedNode() throws Exception {
        try (IdemProcess idem = new IdemProcess(dir).start();
                LoopbackProxy proxy = new LoopbackProxy(idem.port())) {
            IdemClient client = IdemClient.create(IdemClientConfig.builder(proxy.url())
                    .apiKey(IdemProcess.API_KEY)
                    .maxAttempts(20)
                    // 20 attempts with waits up to 6 s span about a minute: the restart below (a JVM, Flyway, the bind)
                    // took
                    // longer than the 25 s that waits up to 2 s gave, on a machine at load 40
                    .initialBackoff(Duration.ofMillis(250))
                    .maxBackoff(Duration.ofSeconds(6))
                    .build());
            ScheduleCreate req = ScheduleCreate.builder("https://example.com/killed")
                    .fireAt(Instant.parse("2030-01-01T00:00:00Z"))
                    .build();
            proxy.holdAnswers();
            CompletableFuture<IdemResponse<Schedule>> call = CompletableFuture.supplyAsync(
                    () -> client.schedules().createWithResponse(req, RequestOptions.none()));
            await().atMost(Duration.ofSeconds(60)).until(() -> proxy.answersArrived() > 0);
            idem.kill();
            proxy.dropNextAnswers(1);
            proxy.releaseAnswers();
            idem.start();
            proxy.upstream(idem.port());

            IdemResponse<Schedule> r = call.get(120, TimeUnit.SECONDS);
            assertThat(r.replayed())
                    .as("answered from the response stored with the schedule")
                    .isTrue();
            assertThat(proxy.connectionsRefused())
                    .as("retries met the dead node")
                    .isPositive();
            assertThat(proxy.requestsWithKey(r.idempotencyKey())).hasSizeGreaterThanOrEqualTo(2);
            IdemClient direct = IdemClient.create(IdemClientConfig.builder(idem.url())
                    .apiKey(IdemProcess.API_KEY)
                    .build());
            List<Schedule> created = direct
                    .schedules()
                    .list(ListParams.builder().limit(100).build())
                    .stream()
                    .filter(s -> s.endpoint().equals("https://example.com/killed"))
                    .toList();
            assertThat(created).containsExactly(r.value());
        }
    }
}
