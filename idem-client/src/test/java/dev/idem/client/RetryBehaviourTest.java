package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idem.client.model.ScheduleCreate;
import dev.idem.client.testing.ScriptedServer;
import dev.idem.client.testing.ScriptedServer.Answer;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which failures are retried, with which waits and which key, against a loopback server that answers from a script.
 * The waits are recorded by an injected sleeper instead of slept.
 */
class RetryBehaviourTest {
    static final String SCHEDULE =
            "{\"id\":\"sch_1\",\"object\":\"schedule\",\"status\":\"active\",\"endpoint\":\"https://example.com/x\"}";
    final ScriptedServer server = newServer();
    final List<Duration> waits = new ArrayList<>();
    final Instant now = Instant.parse("2026-03-10T17:00:00Z");

    @AfterEach
    void stop() {
        server.close();
    }

    IdemClient client(int maxAttempts) {
        return IdemClient.create(IdemClientConfig.builder(server.url())
                .apiKey("sk_test_x")
                .maxAttempts(maxAttempts)
                .initialBackoff(Duration.ofMillis(500))
                .maxBackoff(Duration.ofSeconds(8))
                .maxRetryAfter(Duration.ofSeconds(30))
                .clock(Clock.fixed(now, ZoneOffset.UTC))
                .sleeper(waits::add)
                .random(new SplittableRandom(7))
                .build());
    }

    static ScheduleCreate create() {
        return ScheduleCreate.builder("https://example.com/x").build();
    }

    @Test
    void aCreateIsRetriedThrough5xx429AndInProgressWithOneKeyAndTheSameBody() {
        server.then(
                Answer.error(500, "api_error", "internal_error"),
                Answer.error(503, "api_error", "store_unavailable", "Retry-After", "1"),
                Answer.error(429, "rate_limit_error", "rate_limited", "Retry-After", "3"),
                Answer.error(409, "idempotency_error", "idempotency_in_progress"),
                Answer.of(502, "<html>bad gateway</html>"),
                Answer.of(201, SCHEDULE));
        IdemResponse<?> r = client(6).schedules().createWithResponse(create(), RequestOptions.none());

        assertThat(r.attempts()).isEqualTo(6);
        List<ScriptedServer.Received> got = server.received();
        assertThat(got).hasSize(6);
        assertThat(got)
                .extracting(ScriptedServer.Received::idempotencyKey)
                .containsOnly(r.idempotencyKey())
                .doesNotContainNull();
        assertThat(got).extracting(ScriptedServer.Received::body).containsOnly(create().toJson());
        assertThat(got).extracting(ScriptedServer.Received::authorization).containsOnly("Bearer sk_test_x");
        assertThat(waits).hasSize(5);
        assertThat(waits.get(1))
                .as("Retry-After 1s beats a shorter backoff")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(waits.get(2)).as("Retry-After 3s").isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void waitsGrowExponentiallyWithJitterAndStopAtTheCap() {
        server.then(Answer.error(500, "api_error", "internal_error"));
        IdemException e = catchThrowableOfType(
                IdemException.class, () -> client(8).schedules().create(create()));
        assertThat(e.attempts()).isEqualTo(8);
        assertThat(waits).hasSize(7);
        long[] bases = {500, 1000, 2000, 4000, 8000, 8000, 8000};
        for (int i = 0; i < bases.length; i++)
            assertThat(waits.get(i).toMillis()).as("wait %d", i + 1).isBetween(bases[i] / 2, bases[i]);
        assertThat(waits.stream().distinct().count()).as("jittered, not fixed").isGreaterThan(3);
    }

    @Test
    void afterTheLastAttemptTheErrorSaysARetryCouldHelpAndNamesTheKey() {
        server.then(Answer.error(503, "api_error", "store_unavailable"));
        IdemException e = catchThrowableOfType(
                IdemException.class, () -> client(3).schedules().create(create()));
        assertThat(e.retryable()).isTrue();
        assertThat(e.attempts()).isEqualTo(3);
        assertThat(e.httpStatus()).isEqualTo(503);
        assertThat(e.code()).isEqualTo("store_unavailable");
        assertThat(e.requestId()).isEqualTo("req_scripted_store_unavailable");
        assertThat(e.idempotencyKey()).isEqualTo(server.received().get(0).idempotencyKey());
        assertThat(e.getMessage()).contains("3 attempts", "retryable");
    }

    @Test
    void badInputAKeyReusedAndAMissingObjectAreNotRetried() {
        for (Answer a : List.of(
                Answer.error(400, "invalid_request_error", "parameter_missing"),
                Answer.error(409, "idempotency_error", "idempotency_key_reuse"),
                Answer.error(404, "not_found_error", "resource_missing"),
                Answer.error(401, "authentication_error", "api_key_invalid"))) {
            waits.clear();
            int before = server.received().size();
            server.then(a);
            IdemException e = catchThrowableOfType(
                    IdemException.class, () -> client(5).schedules().create(create()));
            assertThat(e.retryable()).as(a.body()).isFalse();
            assertThat(e.attempts()).isEqualTo(1);
            assertThat(server.received().size() - before).isEqualTo(1);
            assertThat(waits).isEmpty();
        }
    }

    @Test
    void aConnectionClosedWithoutAnAnswerIsRetriedWithTheSameKey() {
        server.then(Answer.hangUp(), Answer.hangUp(), Answer.of(200, SCHEDULE));
        IdemResponse<?> r = client(5).schedules().createWithResponse(create(), RequestOptions.none());
        assertThat(r.attempts()).isEqualTo(3);
        assertThat(server.received())
                .extracting(ScriptedServer.Received::idempotencyKey)
                .hasSize(3)
                .containsOnly(r.idempotencyKey());
    }

    @Test
    void aRefusedConnectionIsAConnectionErrorThatMayBeRetried() throws IOException {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        IdemClient nowhere = IdemClient.create(IdemClientConfig.builder("http://127.0.0.1:" + closed)
                .maxAttempts(3)
                .sleeper(waits::add)
                .build());
        IdemException e = catchThrowableOfType(
                IdemException.class, () -> nowhere.schedules().create(create()));
        assertThat(e.type()).isEqualTo(IdemException.CONNECTION_ERROR);
        assertThat(e.code()).isEqualTo("connection_refused");
        assertThat(e.httpStatus()).isZero();
        assertThat(e.retryable()).isTrue();
        assertThat(e.attempts()).isEqualTo(3);
        assertThat(waits).hasSize(2);
        assertThat(e.getMessage()).contains("no answer", "127.0.0.1:" + closed);
    }

    @Test
    void aRetryAfterLongerThanTheCapEndsTheCallAtOnceStillRetryable() {
        server.then(Answer.error(429, "rate_limit_error", "rate_limited", "Retry-After", "120"));
        IdemException e = catchThrowableOfType(
                IdemException.class, () -> client(5).schedules().create(create()));
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(e.retryable()).isTrue();
        assertThat(e.retryAfter()).contains(Duration.ofSeconds(120));
        assertThat(waits).isEmpty();
    }

    @Test
    void aRetryAfterGivenAsAnHttpDateIsReadAgainstTheClock() {
        server.then(
                Answer.error(503, "api_error", "store_unavailable", "Retry-After", "Tue, 10 Mar 2026 17:00:07 GMT"),
                Answer.of(201, SCHEDULE));
        client(3).schedules().create(create());
        assertThat(waits).containsExactly(Duration.ofSeconds(7));
    }

    @Test
    void readsCarryNoKeyAndAreRetriedToo() {
        server.then(Answer.error(502, "api_error", "bad_gateway"), Answer.of(200, SCHEDULE));
        assertThat(client(3).schedules().get("sch_1").id()).isEqualTo("sch_1");
        assertThat(server.received())
                .extracting(ScriptedServer.Received::idempotencyKey)
                .containsExactly(null, null);
        assertThat(server.received().get(0).method()).isEqualTo("GET");
    }

    @Test
    void aNotReadyNodeIsAnAnswerNotAFailure() {
        server.then(Answer.of(503, "{\"status\":\"store_unreachable\",\"store\":\"postgresql\"}"));
        var h = client(5).readiness();
        assertThat(h.ok()).isFalse();
        assertThat(h.status()).isEqualTo("store_unreachable");
        assertThat(server.received()).hasSize(1);
    }

    @Test
    void unknownFieldsInAnAnswerAreIgnored() {
        server.then(
                Answer.of(
                        200,
                        "{\"id\":\"sch_1\",\"status\":\"active\",\"brand_new_field\":{\"x\":[1,2]},\"flow_control\":{\"key\":\"k\",\"rate\":2.5}}"));
        var s = client(1).schedules().get("sch_1");
        assertThat(s.id()).isEqualTo("sch_1");
        assertThat(s.flowControl().rate().doubleValue()).isEqualTo(2.5);
    }

    @Test
    void anInterruptedWaitEndsTheCallAndKeepsTheInterrupt() {
        server.then(Answer.error(500, "api_error", "internal_error"));
        IdemClient c = IdemClient.create(IdemClientConfig.builder(server.url())
                .sleeper(d -> {
                    throw new InterruptedException();
                })
                .build());
        IdemException e =
                catchThrowableOfType(IdemException.class, () -> c.schedules().create(create()));
        assertThat(e.code()).isEqualTo("interrupted");
        assertThat(Thread.interrupted()).isTrue();
    }

    private static ScriptedServer newServer() {
        try {
            return new ScriptedServer();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
