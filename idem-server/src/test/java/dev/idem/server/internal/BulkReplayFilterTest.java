package dev.idem.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The bulk replay's filter resolves a duration back from now at the server's injected clock, not the machine's, when
 * it checks that {@code since} comes before {@code until}: the clocks here are years away from the wall clock, so a
 * check made at the wall clock answers the other way.
 */
class BulkReplayFilterTest {
    private static ObjectNode body(String since, String until) {
        return Json.object().put("status", "dead").put("since", since).put("until", until);
    }

    private static Clock at(String instant) {
        return Clock.fixed(Instant.parse(instant), ZoneOffset.UTC);
    }

    @Test
    void aRelativeUntilBeforeSinceByTheInjectedClockIsRefusedNamingUntil() {
        // at 2000-01-01 "1h" is 1999-12-31T23:00, before since; at any later wall clock it is after
        assertThatThrownBy(
                        () -> BulkReplay.Filter.parse(body("2000-06-01T00:00:00Z", "1h"), at("2000-01-01T00:00:00Z")))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.code()).isEqualTo("parameter_out_of_range");
                    assertThat(e.param()).isEqualTo("until");
                });
    }

    @Test
    void aRelativeUntilAfterSinceByTheInjectedClockIsAccepted() {
        // at 2090-06-01 "1h" is after since; at the wall clock (before 2090) it would be before it
        BulkReplay.Filter filter =
                BulkReplay.Filter.parse(body("2090-01-01T00:00:00Z", "1h"), at("2090-06-01T00:00:00Z"));

        var dead = filter.resolve(Instant.parse("2090-06-01T00:00:00Z"));
        assertThat(dead.deadSince()).isEqualTo(Instant.parse("2090-01-01T00:00:00Z"));
        assertThat(dead.deadBefore()).isEqualTo(Instant.parse("2090-05-31T23:00:00Z"));
    }
}
