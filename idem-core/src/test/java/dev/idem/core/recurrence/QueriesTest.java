package dev.idem.core.recurrence;

import static dev.idem.core.recurrence.Fixtures.NEW_YORK;
import static dev.idem.core.recurrence.Fixtures.local;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/** firstAfter / between / latestIn / preview as the scheduler calls them. */
class QueriesTest {

    @Test
    void firstAfterIsStrictlyAfter() {
        Recurrence r = Fixtures.rrule("FREQ=DAILY;BYHOUR=9", ZoneOffset.UTC, "2025-01-01T09:00");
        assertThat(r.firstAfter(Instant.parse("2025-01-05T09:00:00Z"))
                        .orElseThrow()
                        .utc())
                .isEqualTo(Instant.parse("2025-01-06T09:00:00Z"));
        assertThat(r.firstAfter(Instant.parse("2024-01-01T00:00:00Z"))
                        .orElseThrow()
                        .utc())
                .isEqualTo(Instant.parse("2025-01-01T09:00:00Z"));
    }

    @Test
    void firstAfterSkipsAheadForDenseRulesFarFromDtstart() {
        Recurrence secondly = Fixtures.rrule("FREQ=SECONDLY;INTERVAL=7", ZoneOffset.UTC, "2000-01-01T00:00:00");
        Instant x = Instant.parse("2026-06-15T12:34:56Z");
        long start = System.nanoTime();
        Instant next = secondly.firstAfter(x).orElseThrow().utc();
        long micros = (System.nanoTime() - start) / 1000;
        long sinceStart =
                next.getEpochSecond() - Instant.parse("2000-01-01T00:00:00Z").getEpochSecond();
        assertThat(sinceStart % 7).isZero();
        assertThat(Duration.between(x, next)).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(7));
        assertThat(micros).as("µs for firstAfter 26 years after DTSTART").isLessThan(200_000);
    }

    @Test
    void firstAfterWithCountStopsAtTheEnd() {
        Recurrence r = Fixtures.rrule("FREQ=MINUTELY;COUNT=5", ZoneOffset.UTC, "2025-01-01T09:00");
        assertThat(r.firstAfter(Instant.parse("2025-01-01T09:03:00Z"))
                        .orElseThrow()
                        .local())
                .isEqualTo(local("2025-01-01T09:04"));
        assertThat(r.firstAfter(Instant.parse("2025-01-01T09:04:00Z"))).isEmpty();
    }

    @Test
    void countedDenseRuleIsQueriedNearItsEndWithoutRecountingEachTime() {
        Recurrence r = Fixtures.rrule("FREQ=SECONDLY;COUNT=1000000", ZoneOffset.UTC, "2025-01-01T00:00:00");
        Instant last = Instant.parse("2025-01-01T00:00:00Z").plusSeconds(999_999);
        assertThat(r.firstAfter(last.minusSeconds(1)).orElseThrow().utc()).isEqualTo(last);
        long start = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            assertThat(r.firstAfter(last.minusSeconds(i + 1)).orElseThrow().utc())
                    .isEqualTo(last.minusSeconds(i));
        }
        assertThat(r.firstAfter(last)).isEmpty();
        assertThat((System.nanoTime() - start) / 1_000_000)
                .as("ms for 1000 queries")
                .isLessThan(2_000);
    }

    @Test
    void extremeInstantsAreAnsweredNotThrown() {
        Recurrence r = Fixtures.rrule("FREQ=DAILY", NEW_YORK, "2025-01-01T09:00");
        assertThat(r.firstAfter(Instant.MAX)).isEmpty();
        assertThat(r.firstAfter(Instant.MIN).orElseThrow().local()).isEqualTo(local("2025-01-01T09:00"));
        assertThat(r.between(Instant.MIN, Instant.MAX, 2)).hasSize(2);
        assertThat(r.latestIn(Instant.parse("9999-12-01T00:00:00Z"), Instant.MAX)
                        .orElseThrow()
                        .local()
                        .getYear())
                .isEqualTo(9999);
        assertThat(r.latestIn(Instant.MIN, Instant.parse("2025-01-03T15:00:00Z"))
                        .orElseThrow()
                        .local())
                .isEqualTo(local("2025-01-03T09:00"));
        assertThat(r.latestIn(Instant.MIN, Instant.MIN.plusSeconds(1))).isEmpty();
    }

    @Test
    void betweenIsHalfOpenAndLimited() {
        Recurrence r = Fixtures.rrule("FREQ=HOURLY", ZoneOffset.UTC, "2025-01-01T00:00");
        List<Occurrence> got =
                r.between(Instant.parse("2025-01-01T01:00:00Z"), Instant.parse("2025-01-01T04:00:00Z"), 10);
        assertThat(got)
                .extracting(Occurrence::local)
                .containsExactly(local("2025-01-01T02:00"), local("2025-01-01T03:00"), local("2025-01-01T04:00"));
        assertThat(r.between(Instant.parse("2025-01-01T01:00:00Z"), Instant.parse("2025-01-02T04:00:00Z"), 2))
                .hasSize(2);
    }

    @Test
    void latestInFindsTheMostRecentMissedOccurrence() {
        Recurrence secondly = Fixtures.rrule("FREQ=SECONDLY;INTERVAL=3", ZoneOffset.UTC, "2025-01-01T00:00:00");
        assertThat(secondly.latestIn(Instant.parse("2025-01-01T00:00:00Z"), Instant.parse("2025-03-01T00:00:01Z"))
                        .orElseThrow()
                        .utc())
                .isEqualTo(Instant.parse("2025-03-01T00:00:00Z"));
        Recurrence yearly = Fixtures.rrule("FREQ=YEARLY", ZoneOffset.UTC, "2020-02-29T09:00");
        assertThat(yearly.latestIn(Instant.parse("2020-03-01T00:00:00Z"), Instant.parse("2031-01-01T00:00:00Z"))
                        .orElseThrow()
                        .local())
                .isEqualTo(local("2028-02-29T09:00"));
        assertThat(yearly.latestIn(Instant.parse("2028-03-01T00:00:00Z"), Instant.parse("2031-01-01T00:00:00Z")))
                .isEmpty();
    }

    @Test
    void previewOfCronStartsAfterTheGivenInstant() {
        Clock clock = Clock.fixed(Instant.parse("2025-01-01T09:30:00Z"), ZoneOffset.UTC);
        assertThat(Recurrences.preview(RecurrenceSpec.cron("0 * * * *", NEW_YORK), 2, clock))
                .extracting(Occurrence::utc)
                .containsExactly(Instant.parse("2025-01-01T10:00:00Z"), Instant.parse("2025-01-01T11:00:00Z"));
    }

    @Test
    void resultsDoNotDependOnTheJvmDefaultLocaleOrZone() {
        String rule = "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU";
        List<Occurrence> before =
                Fixtures.rrule(rule, NEW_YORK, "1997-08-05T09:00").preview(null, 10);
        List<Occurrence> cronBefore = Recurrences.compile(RecurrenceSpec.cron("0 9 * * MON", NEW_YORK))
                .preview(Instant.parse("2025-03-01T00:00:00Z"), 5);
        Locale locale = Locale.getDefault();
        TimeZone zone = TimeZone.getDefault();
        try {
            Locale.setDefault(Locale.US);
            TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Kiritimati"));
            List<Occurrence> after =
                    Fixtures.rrule(rule, NEW_YORK, "1997-08-05T09:00").preview(null, 10);
            assertThat(after).isEqualTo(before);
            assertThat(after)
                    .extracting(Occurrence::local)
                    .containsExactlyElementsOf(Fixtures.at9("1997-08: 5,10,19,24"));
            assertThat(Recurrences.compile(RecurrenceSpec.cron("0 9 * * MON", NEW_YORK))
                            .preview(Instant.parse("2025-03-01T00:00:00Z"), 5))
                    .isEqualTo(cronBefore);
        } finally {
            Locale.setDefault(locale);
            TimeZone.setDefault(zone);
        }
    }
}
