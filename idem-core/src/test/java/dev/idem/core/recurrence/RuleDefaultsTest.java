package dev.idem.core.recurrence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RuleDefaultsTest {
    static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    static final Instant MID_MINUTE = Instant.parse("2026-06-01T10:00:40.130Z");

    @Test
    void dtstartIsTheNextWholeMinuteInTheZone() {
        assertThat(RuleDefaults.of("FREQ=DAILY", PARIS, MID_MINUTE).dtstart())
                .isEqualTo(LocalDateTime.parse("2026-06-01T12:01:00"));
        assertThat(RuleDefaults.of("FREQ=DAILY", ZoneId.of("Asia/Kolkata"), MID_MINUTE)
                        .dtstart())
                .isEqualTo(LocalDateTime.parse("2026-06-01T15:31:00"));
    }

    @Test
    void aSecondlyRuleStartsOnTheNextWholeSecond() {
        assertThat(RuleDefaults.of("FREQ=SECONDLY;INTERVAL=3;COUNT=3", ZoneId.of("UTC"), MID_MINUTE)
                        .dtstart())
                .isEqualTo(LocalDateTime.parse("2026-06-01T10:00:41"));
    }

    @Test
    void aWholeMinuteIsItsOwnRoundingUp() {
        assertThat(RuleDefaults.of("FREQ=MINUTELY", ZoneId.of("UTC"), Instant.parse("2026-06-01T10:00:00Z"))
                        .dtstart())
                .isEqualTo(LocalDateTime.parse("2026-06-01T10:00:00"));
    }

    @Test
    void byHourWithoutByMinuteImpliesMinuteZeroForHourlyAndCoarser() {
        for (String freq : List.of("HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"))
            assertThat(RuleDefaults.of("FREQ=" + freq + ";BYHOUR=9", PARIS, MID_MINUTE)
                            .rule())
                    .isEqualTo("FREQ=" + freq + ";BYHOUR=9;BYMINUTE=0");
        assertThat(RuleDefaults.of("FREQ=DAILY;BYHOUR=9;", PARIS, MID_MINUTE).rule())
                .isEqualTo("FREQ=DAILY;BYHOUR=9;BYMINUTE=0");
        assertThat(RuleDefaults.of(" RRULE:FREQ=DAILY;BYHOUR=9 ", PARIS, MID_MINUTE)
                        .rule())
                .isEqualTo("RRULE:FREQ=DAILY;BYHOUR=9;BYMINUTE=0");
    }

    @Test
    void aRuleThatNamesItsMinutesOrIteratesMinutesIsLeftAlone() {
        assertThat(RuleDefaults.of("FREQ=DAILY;BYHOUR=9;BYMINUTE=30", PARIS, MID_MINUTE)
                        .rule())
                .isEqualTo("FREQ=DAILY;BYHOUR=9;BYMINUTE=30");
        assertThat(RuleDefaults.of("FREQ=MINUTELY;BYHOUR=9", PARIS, MID_MINUTE).rule())
                .isEqualTo("FREQ=MINUTELY;BYHOUR=9");
        assertThat(RuleDefaults.of("FREQ=SECONDLY;BYHOUR=9", PARIS, MID_MINUTE).rule())
                .isEqualTo("FREQ=SECONDLY;BYHOUR=9");
        assertThat(RuleDefaults.of("FREQ=WEEKLY;BYDAY=MO", PARIS, MID_MINUTE).rule())
                .isEqualTo("FREQ=WEEKLY;BYDAY=MO");
    }

    @Test
    void byHourAloneFiresAtNineOClockSharp() {
        RuleDefaults d = RuleDefaults.of("FREQ=DAILY;BYHOUR=9", PARIS, MID_MINUTE);
        Occurrence first = Recurrences.compile(RecurrenceSpec.rrule(d.rule(), PARIS, d.dtstart()))
                .firstAfter(MID_MINUTE)
                .orElseThrow();
        assertThat(first.local()).isEqualTo(LocalDateTime.parse("2026-06-02T09:00:00"));
    }

    @Test
    void byMinuteWithoutBySecondFiresOnSecondZero() {
        RuleDefaults d = RuleDefaults.of("FREQ=HOURLY;BYMINUTE=30", PARIS, MID_MINUTE);
        assertThat(d.rule()).isEqualTo("FREQ=HOURLY;BYMINUTE=30");
        Occurrence first = Recurrences.compile(RecurrenceSpec.rrule(d.rule(), PARIS, d.dtstart()))
                .firstAfter(MID_MINUTE)
                .orElseThrow();
        assertThat(first.local()).isEqualTo(LocalDateTime.parse("2026-06-01T12:30:00"));
    }

    @Test
    void anInvalidRuleIsRefusedAsCompileWould() {
        assertThatThrownBy(() -> RuleDefaults.of("FREQ=SOMETIMES", PARIS, MID_MINUTE))
                .isInstanceOf(InvalidRecurrenceException.class)
                .hasMessageContaining("FREQ=SOMETIMES");
    }

    @Test
    void inTheSecondPassOfAFallBackHourTheAnchorIsTheEndOfTheOverlap() {
        // 2026-10-25 03:00 CEST -> 02:00 CET in Paris; 01:30:30Z is 02:30:30 CET, the second 02:30 of the night
        Instant now = Instant.parse("2026-10-25T01:30:30Z");
        RuleDefaults d = RuleDefaults.of("FREQ=MINUTELY;COUNT=3", PARIS, now);
        assertThat(d.dtstart()).isEqualTo(LocalDateTime.parse("2026-10-25T03:00:00"));
        List<Occurrence> all = Recurrences.compile(RecurrenceSpec.rrule(d.rule(), PARIS, d.dtstart()))
                .preview(now, 10);
        assertThat(all).hasSize(3).allSatisfy(o -> assertThat(o.utc()).isAfterOrEqualTo(now));
    }

    @Test
    void inASpringForwardGapTheAnchorMovesForwardAndStaysAhead() {
        // 2026-03-29 02:00 CET -> 03:00 CEST in Paris
        Instant now = Instant.parse("2026-03-29T00:59:30Z");
        RuleDefaults d = RuleDefaults.of("FREQ=MINUTELY;COUNT=2", PARIS, now);
        List<Occurrence> all = Recurrences.compile(RecurrenceSpec.rrule(d.rule(), PARIS, d.dtstart()))
                .preview(now, 10);
        assertThat(all)
                .extracting(Occurrence::utc)
                .containsExactly(Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-03-29T01:01:00Z"));
    }

    @Test
    void everyOccurrenceOfACountedRuleIsAheadOfTheCreationWhateverTheZoneAndInstant() {
        Random random = new Random(12);
        List<String> zones = List.of(
                "UTC", "Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Chatham");
        for (int i = 0; i < 2000; i++) {
            Instant now =
                    Instant.ofEpochMilli(Instant.parse("2020-01-01T00:00:00Z").toEpochMilli()
                            + (long) (random.nextDouble() * 10 * 365 * 86_400_000L));
            ZoneId zone = ZoneId.of(zones.get(random.nextInt(zones.size())));
            String freq = List.of("SECONDLY", "MINUTELY", "HOURLY", "DAILY").get(random.nextInt(4));
            RuleDefaults d = RuleDefaults.of("FREQ=" + freq + ";COUNT=2", zone, now);
            List<Occurrence> all = Recurrences.compile(RecurrenceSpec.rrule(d.rule(), zone, d.dtstart()))
                    .preview(now, 10);
            assertThat(all)
                    .as(freq + " in " + zone + " at " + now)
                    .hasSize(2)
                    .allSatisfy(o -> assertThat(o.utc()).isAfterOrEqualTo(now));
        }
    }
}
