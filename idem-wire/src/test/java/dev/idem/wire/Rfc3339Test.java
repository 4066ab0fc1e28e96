package dev.idem.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Rfc3339Test {
    /** The reference: what the formatter was before the hand-written fast path. */
    private static final DateTimeFormatter REFERENCE =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    @Test
    void formatsMillisecondsInUtcWithAZ() {
        assertThat(Rfc3339.format(Instant.parse("2026-03-08T07:05:09.123456789Z")))
                .isEqualTo("2026-03-08T07:05:09.123Z");
        assertThat(Rfc3339.format(Instant.EPOCH)).isEqualTo("1970-01-01T00:00:00.000Z");
        assertThat(Rfc3339.format(Instant.parse("2024-02-29T23:59:59.999Z"))).isEqualTo("2024-02-29T23:59:59.999Z");
    }

    @Test
    void agreesWithTheJdkFormatterAcrossTheWholeRangeAndBeyondIt() {
        SplittableRandom random = new SplittableRandom(20261126);
        long min = Instant.parse("-0999-01-01T00:00:00Z").getEpochSecond();
        long max = Instant.parse("+12000-01-01T00:00:00Z").getEpochSecond();
        for (int i = 0; i < 200_000; i++) {
            Instant t = Instant.ofEpochSecond(random.nextLong(min, max), random.nextInt(1_000_000_000));
            assertThat(Rfc3339.format(t))
                    .as(t.toString())
                    .isEqualTo(REFERENCE.format(t.truncatedTo(ChronoUnit.MILLIS)));
        }
        for (String edge : new String[] {
            "0000-01-01T00:00:00Z", "-0001-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z", "+10000-01-01T00:00:00Z"
        }) {
            Instant t = Instant.parse(edge);
            assertThat(Rfc3339.format(t)).as(edge).isEqualTo(REFERENCE.format(t));
        }
    }
}
