package dev.idem.core.recurrence;

import static dev.idem.core.recurrence.Fixtures.at9;
import static dev.idem.core.recurrence.Fixtures.local;
import static dev.idem.core.recurrence.Fixtures.locals;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Leap days and the rule shapes DESIGN.md reports lib-recur and ical4j getting wrong; the
 * expander here is ours, so these pin the RFC 5545 reading we chose.
 */
class CornerCasesTest {

    private static final ZoneId UTC = ZoneOffset.UTC;

    private static List<LocalDateTime> first(String rule, String dtstart, int n) {
        return locals(Fixtures.rrule(rule, UTC, dtstart).preview(null, n));
    }

    @Test
    void yearlyOnFebruary29OccursOnlyInLeapYears() {
        assertThat(first("FREQ=YEARLY", "2024-02-29T09:00", 3))
                .containsExactlyElementsOf(at9("2024-02: 29; 2028-02: 29; 2032-02: 29"));
        assertThat(first("FREQ=YEARLY", "2096-02-29T09:00", 2))
                .containsExactlyElementsOf(at9("2096-02: 29; 2104-02: 29"));
    }

    @Test
    void lastDayOfFebruaryFollowsLeapYears() {
        assertThat(first("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1", "2023-01-01T09:00", 3))
                .containsExactlyElementsOf(at9("2023-02: 28; 2024-02: 29; 2025-02: 28"));
        assertThat(first("FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3", "2024-01-31T09:00", 5))
                .containsExactlyElementsOf(at9("2024-01: 31; 2024-02: 29; 2024-03: 31"));
    }

    @Test
    void monthlyOnThe31stSkipsShortMonthsWithoutCountingThem() {
        assertThat(first("FREQ=MONTHLY;COUNT=3", "2025-01-31T09:00", 5))
                .containsExactlyElementsOf(at9("2025-01: 31; 2025-03: 31; 2025-05: 31"));
    }

    @Test
    void yearDay366OnlyExistsInLeapYears() {
        assertThat(first("FREQ=YEARLY;BYYEARDAY=366", "2023-01-01T09:00", 2))
                .containsExactlyElementsOf(at9("2024-12: 31; 2028-12: 31"));
        assertThat(first("FREQ=YEARLY;BYYEARDAY=-366", "2023-01-01T09:00", 2))
                .containsExactlyElementsOf(at9("2024-01: 1; 2028-01: 1"));
    }

    @Test
    void bySetPosPicksFromEachPeriodsFullSet() {
        assertThat(first("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "2025-01-01T09:00", 5))
                .containsExactlyElementsOf(at9("2025-01: 31; 2025-02: 28; 2025-03: 31; 2025-04: 30; 2025-05: 30"));
        assertThat(first("FREQ=MONTHLY;BYDAY=SA,SU;BYSETPOS=1,-1", "2025-03-01T09:00", 4))
                .containsExactlyElementsOf(at9("2025-03: 1,30; 2025-04: 5,27"));
        assertThat(first("FREQ=DAILY;BYHOUR=9,17;BYSETPOS=-1", "2025-03-01T09:00", 2))
                .containsExactlyElementsOf(Fixtures.days(LocalTime.of(17, 0), "2025-03: 1,2"));
    }

    @Test
    void aYearlyRuleListingEverySecondIsReadLazily() {
        String all = ";BYHOUR=" + range(0, 23) + ";BYMINUTE=" + range(0, 59) + ";BYSECOND=" + range(0, 59);
        Recurrence everySecond =
                Fixtures.rrule("FREQ=YEARLY;BYMONTH=1,7;BYMONTHDAY=1,-1" + all, UTC, "2025-01-01T00:00:00");
        assertThat(everySecond
                        .firstAfter(java.time.Instant.parse("2025-07-31T12:34:56Z"))
                        .orElseThrow()
                        .local())
                .isEqualTo(local("2025-07-31T12:34:57"));
        assertThat(first("FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=31;BYSETPOS=-1" + all, "2025-01-01T00:00:00", 2))
                .containsExactly(local("2025-12-31T23:59:59"), local("2026-12-31T23:59:59"));
    }

    private static String range(int from, int to) {
        return java.util.stream.IntStream.rangeClosed(from, to)
                .mapToObj(Integer::toString)
                .collect(java.util.stream.Collectors.joining(","));
    }

    @Test
    void bySetPosAppliesBeforeDtstartIsFilteredOut() {
        // the first weekday of March 2025 is the 3rd, before DTSTART: it is not replaced by the next one
        assertThat(first("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1", "2025-03-05T09:00", 2))
                .containsExactlyElementsOf(at9("2025-04: 1; 2025-05: 1"));
    }

    @Test
    void weeklyBySetPosCountsTheWholeFirstWeekNotJustFromDtstart() {
        // week of Tue 11 June 2002 is Mon 10 - Sun 16; its first match (Mon 10) is before DTSTART.
        // python-dateutil starts that week's set at DTSTART and would answer Sun 16 as well.
        assertThat(first("FREQ=WEEKLY;BYDAY=SU,MO;BYSETPOS=1", "2002-06-11T09:00", 2))
                .containsExactlyElementsOf(at9("2002-06: 17,24"));
    }

    @Test
    void weekNumber53OnlyInYearsThatHaveIt() {
        assertThat(first("FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO", "2015-01-01T09:00", 3))
                .containsExactlyElementsOf(at9("2015-12: 28; 2020-12: 28; 2026-12: 28"));
        assertThat(first("FREQ=YEARLY;BYWEEKNO=-1;BYDAY=MO", "2025-01-01T09:00", 2))
                .containsExactlyElementsOf(at9("2025-12: 22; 2026-12: 28"));
    }

    @Test
    void weekNumberWithoutBydayExpandsToTheWholeWeek() {
        assertThat(first("FREQ=YEARLY;BYWEEKNO=1", "2025-01-01T09:00", 12))
                .containsExactlyElementsOf(at9("2025-01: 1,2,3,4,5; 2025-12: 29,30,31; 2026-01: 1,2,3,4"));
    }

    @Test
    void weekNumbersHonourWkst() {
        // with WKST=SU, week 1 of 2025 runs Sun 29 Dec 2024 - Sat 4 Jan 2025
        assertThat(first("FREQ=YEARLY;BYWEEKNO=2;BYDAY=SU;WKST=SU", "2025-01-01T09:00", 1))
                .containsExactlyElementsOf(at9("2025-01: 5"));
        assertThat(first("FREQ=YEARLY;BYWEEKNO=2;BYDAY=SU", "2025-01-01T09:00", 1))
                .containsExactlyElementsOf(at9("2025-01: 12"));
    }

    @Test
    void yearlyByMonthDayWithoutByMonthExpandsToEveryMonth() {
        assertThat(first("FREQ=YEARLY;BYMONTHDAY=1;COUNT=3", "2025-01-15T09:00", 5))
                .containsExactlyElementsOf(at9("2025-02: 1; 2025-03: 1; 2025-04: 1"));
    }

    @Test
    void byMonthLimitsByYearDay() {
        assertThat(first("FREQ=YEARLY;BYYEARDAY=1,100,200;BYMONTH=4", "2025-01-01T09:00", 4))
                .containsExactlyElementsOf(at9("2025-04: 10; 2026-04: 10; 2027-04: 10; 2028-04: 9"));
    }

    @Test
    void yearlyNthWeekdayIsCountedInTheMonthWhenByMonthIsGiven() {
        assertThat(first("FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", "2025-01-01T12:00", 2))
                .containsExactly(local("2025-11-27T12:00"), local("2026-11-26T12:00"));
        assertThat(first("FREQ=YEARLY;BYDAY=-1FR", "2025-01-01T12:00", 2))
                .containsExactly(local("2025-12-26T12:00"), local("2026-12-25T12:00"));
    }

    @Test
    void dtstartCountsOnlyWhenItMatches() {
        assertThat(first("FREQ=MONTHLY;BYDAY=1MO;COUNT=2", "2025-01-15T09:00", 5))
                .containsExactlyElementsOf(at9("2025-02: 3; 2025-03: 3"));
    }

    @Test
    void exdateRemovesAfterCount() {
        RecurrenceSpec spec = new RecurrenceSpec(
                RecurrenceSpec.Kind.RRULE,
                "FREQ=DAILY;COUNT=3",
                UTC,
                local("2025-01-01T09:00"),
                List.of(local("2025-01-02T09:00")),
                null,
                null);
        assertThat(locals(Recurrences.compile(spec).preview(null, 10))).containsExactlyElementsOf(at9("2025-01: 1,3"));
    }

    @ParameterizedTest
    @CsvSource({"UNTIL=20250103, 3", "UNTIL=20250103T090000, 3", "UNTIL=20250103T085959, 2", "UNTIL=20250103T090000Z, 3"
    })
    void untilIsInclusiveInEachForm(String until, int expected) {
        assertThat(first("FREQ=DAILY;" + until, "2025-01-01T09:00", 10)).hasSize(expected);
    }

    @Test
    void secondlyAndMinutelyExpandWithinTheirPeriods() {
        assertThat(first("FREQ=MINUTELY;BYSECOND=0,30;COUNT=4", "2025-01-01T09:00", 5))
                .containsExactly(
                        local("2025-01-01T09:00:00"),
                        local("2025-01-01T09:00:30"),
                        local("2025-01-01T09:01:00"),
                        local("2025-01-01T09:01:30"));
        assertThat(first("FREQ=SECONDLY;INTERVAL=20;BYMINUTE=0;COUNT=4", "2025-01-01T09:59:40", 5))
                .containsExactly(
                        local("2025-01-01T10:00:00"),
                        local("2025-01-01T10:00:20"),
                        local("2025-01-01T10:00:40"),
                        local("2025-01-01T11:00:00"));
        assertThat(first("FREQ=HOURLY;INTERVAL=5;BYHOUR=0,10;COUNT=3", "2025-01-01T00:15", 5))
                .containsExactly(local("2025-01-01T00:15"), local("2025-01-01T10:15"), local("2025-01-06T00:15"));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30",
                "FREQ=MONTHLY;BYMONTH=4,6,9,11;BYMONTHDAY=31",
                "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30",
                "FREQ=MONTHLY;BYDAY=5MO;BYMONTH=2;BYMONTHDAY=1",
                "FREQ=HOURLY;INTERVAL=2;BYHOUR=1",
                "FREQ=DAILY;UNTIL=20240101T000000Z",
            })
    void impossibleRulesAreRejectedQuickly(String rule) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> Fixtures.rrule(rule, UTC, "2025-01-01T00:00"))
                .isInstanceOfSatisfying(InvalidRecurrenceException.class, e -> {
                    assertThat(e.param()).isEqualTo("rrule");
                    assertThat(e.code()).isEqualTo("rule_has_no_occurrences");
                    assertThat(e.getMessage()).contains("has no occurrences");
                });
        assertThat((System.nanoTime() - start) / 1_000_000).as("ms").isLessThan(5_000);
    }
}
