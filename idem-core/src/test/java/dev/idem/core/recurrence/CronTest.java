package dev.idem.core.recurrence;

import static dev.idem.core.recurrence.Fixtures.local;
import static dev.idem.core.recurrence.Fixtures.locals;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CronTest {

    private static final Instant JAN_1_2025 = Instant.parse("2025-01-01T00:00:00Z");

    private static List<LocalDateTime> first(String cron, int n) {
        return locals(
                Recurrences.compile(RecurrenceSpec.cron(cron, ZoneOffset.UTC)).preview(JAN_1_2025, n));
    }

    @Test
    void fiveFieldsWithNamesRangesAndSteps() {
        assertThat(first("0 9 * JAN-MAR MON-FRI", 3))
                .containsExactly(local("2025-01-01T09:00"), local("2025-01-02T09:00"), local("2025-01-03T09:00"));
        assertThat(first("*/20 8-9 * * *", 4))
                .containsExactly(
                        local("2025-01-01T08:00"),
                        local("2025-01-01T08:20"),
                        local("2025-01-01T08:40"),
                        local("2025-01-01T09:00"));
        assertThat(first("0 0 * * 0", 1)).containsExactly(local("2025-01-05T00:00"));
        assertThat(first("0 0 * * 7", 1)).containsExactly(local("2025-01-05T00:00"));
    }

    @Test
    void weekdayNamesUseVixieNumberingSoSundayToSaturdayIsARange() {
        assertThat(first("0 0 * * SUN-SAT", 2)).containsExactly(local("2025-01-02T00:00"), local("2025-01-03T00:00"));
        assertThat(first("0 0 * * SAT,SUN", 2)).containsExactly(local("2025-01-04T00:00"), local("2025-01-05T00:00"));
        assertThat(first("0 0 * * FRI-SUN", 3))
                .containsExactly(local("2025-01-03T00:00"), local("2025-01-04T00:00"), local("2025-01-05T00:00"));
    }

    @Test
    void nicknamesStandForTheirFiveFieldForms() {
        assertThat(first("@daily", 1)).containsExactly(local("2025-01-02T00:00"));
        assertThat(first("@hourly", 1)).containsExactly(local("2025-01-01T01:00"));
        assertThat(first("@weekly", 1)).containsExactly(local("2025-01-05T00:00"));
        assertThat(first("@monthly", 1)).containsExactly(local("2025-02-01T00:00"));
        assertThat(first("@yearly", 1)).containsExactly(local("2026-01-01T00:00"));
    }

    @Test
    void sixFieldsHaveSecondsFirst() {
        assertThat(first("*/15 * * * * *", 3))
                .containsExactly(
                        local("2025-01-01T00:00:15"), local("2025-01-01T00:00:30"), local("2025-01-01T00:00:45"));
    }

    @Test
    void lastDayNearestWeekdayAndNthWeekday() {
        assertThat(first("0 0 L * *", 2)).containsExactly(local("2025-01-31T00:00"), local("2025-02-28T00:00"));
        // 15 March 2025 is a Saturday: the nearest weekday is Friday the 14th
        assertThat(first("0 0 15W 3 *", 1)).containsExactly(local("2025-03-14T00:00"));
        assertThat(first("0 0 * * 1#2", 2)).containsExactly(local("2025-01-13T00:00"), local("2025-02-10T00:00"));
        assertThat(first("0 0 * * MON#2", 1)).containsExactly(local("2025-01-13T00:00"));
        assertThat(first("0 0 * * 5L", 2)).containsExactly(local("2025-01-31T00:00"), local("2025-02-28T00:00"));
        assertThat(first("0 0 LW * *", 3))
                .containsExactly(local("2025-01-31T00:00"), local("2025-02-28T00:00"), local("2025-03-31T00:00"));
    }

    /** cron-utils alone read day-of-week {@code L} as Sunday: 5, 12, 19 January 2025. */
    @Test
    void lastAloneInDayOfWeekIsSaturdayTheLastDayOfTheWeekAsInQuartz() {
        List<LocalDateTime> saturdays =
                List.of(local("2025-01-04T12:00"), local("2025-01-11T12:00"), local("2025-01-18T12:00"));
        assertThat(first("0 0 12 ? * L", 3)).isEqualTo(saturdays);
        assertThat(first("0 12 * * L", 3)).isEqualTo(saturdays);
        assertThat(first("0 12 ? * l", 3)).isEqualTo(saturdays);
        // in a list L is Saturday too; 6 January 2025 is a Monday
        assertThat(first("0 12 ? * MON,L", 3))
                .containsExactly(local("2025-01-04T12:00"), local("2025-01-06T12:00"), local("2025-01-11T12:00"));
        // both day fields restricted: the 1st (a Wednesday) or a Saturday
        assertThat(first("0 12 1 * L", 3))
                .containsExactly(local("2025-01-01T12:00"), local("2025-01-04T12:00"), local("2025-01-11T12:00"));
    }

    @Test
    void lastAndNthWeekdayOfTheMonthCountSundayAsZeroOrSevenAndSaturdayAsSix() {
        // last Saturdays: 25 January, 22 February, 29 March 2025; last Sundays: 26 January, 23 February
        List<LocalDateTime> lastSaturdays =
                List.of(local("2025-01-25T12:00"), local("2025-02-22T12:00"), local("2025-03-29T12:00"));
        assertThat(first("0 12 ? * 6L", 3)).isEqualTo(lastSaturdays);
        assertThat(first("0 12 ? * SATL", 3)).isEqualTo(lastSaturdays);
        for (String lastSunday : List.of("0 12 ? * 0L", "0 12 ? * 7L", "0 12 ? * SUNL")) {
            assertThat(first(lastSunday, 2))
                    .as(lastSunday)
                    .containsExactly(local("2025-01-26T12:00"), local("2025-02-23T12:00"));
        }
        // first Sundays: 5 January, 2 February; fifth Saturdays: 29 March, 31 May 2025
        assertThat(first("0 12 ? * 7#1", 2)).containsExactly(local("2025-01-05T12:00"), local("2025-02-02T12:00"));
        assertThat(first("0 12 ? * 0#1", 2)).containsExactly(local("2025-01-05T12:00"), local("2025-02-02T12:00"));
        assertThat(first("0 12 ? * 6#5", 2)).containsExactly(local("2025-03-29T12:00"), local("2025-05-31T12:00"));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"0 12 ? * L-2", "0 12 ? * 5-L", "0 12 ? * L/2", "0 12 ? * LW", "0 12 ? * MON,L-1", "0 12 ? * L#2"})
    void aDayOfWeekLastInARangeStepOrOffsetIsRefusedAsNewInput(String cron) {
        assertThatThrownBy(() -> Recurrences.checkInput(RecurrenceSpec.cron(cron, ZoneOffset.UTC)))
                .isInstanceOfSatisfying(InvalidRecurrenceException.class, e -> {
                    assertThat(e.code()).isEqualTo("invalid_cron");
                    assertThat(e.param()).isEqualTo("cron");
                    assertThat(e.getMessage()).contains("day-of-week");
                });
    }

    /** Accepted before and stored: cron-utils read day-of-week {@code L-2} as Sunday, and it still loads so. */
    @Test
    void aStoredDayOfWeekLastWithAnOffsetStillCompilesAsBefore() {
        assertThat(first("0 12 ? * L-2", 2)).containsExactly(local("2025-01-05T12:00"), local("2025-01-12T12:00"));
    }

    @Test
    void aNearestWeekdayToADayAMonthLacksSkipsThatMonthAndNeverLeavesItsOwn() {
        // no 31st in February, April, June, September, November: those months have no 31W, as they have no 31
        assertThat(first("0 0 31W * ?", 4))
                .containsExactly(
                        local("2025-01-31T00:00"),
                        local("2025-03-31T00:00"),
                        local("2025-05-30T00:00"),
                        local("2025-07-31T00:00"));
        // 29 February only in leap years (2028-02-29 is a Tuesday, 2032-02-29 a Sunday ending the month: Friday)
        assertThat(first("0 0 29W 2 ?", 2)).containsExactly(local("2028-02-29T00:00"), local("2032-02-27T00:00"));
        // 30 November 2025 is a Sunday and the month's last day: the nearest weekday is Friday the 28th
        assertThat(first("0 0 30W 11 ?", 1)).containsExactly(local("2025-11-28T00:00"));
        // Saturday the 1st (February 2025) moves forward to Monday the 3rd, not back into January
        assertThat(first("0 0 1W 2 ?", 1)).containsExactly(local("2025-02-03T00:00"));
        for (String never : List.of("0 0 31W 2 ?", "0 0 30W 2 *", "0 0 31W 4,6,9,11 ?", "0 0 15W * */6")) {
            assertThatThrownBy(() -> Recurrences.compile(RecurrenceSpec.cron(never, ZoneOffset.UTC)))
                    .as(never)
                    .isInstanceOfSatisfying(
                            InvalidRecurrenceException.class,
                            e -> assertThat(e.code()).isEqualTo("rule_has_no_occurrences"));
        }
    }

    @Test
    void aDayOfMonthListFiresOnEachOfItsElementsLastDayAndNearestWeekdayIncluded() {
        // cron-utils alone: the 1st only for 1,L; the 31st whatever its weekday for 1,31W; never for L,LW
        assertThat(first("0 0 1,L * ?", 4))
                .containsExactly(
                        local("2025-01-31T00:00"),
                        local("2025-02-01T00:00"),
                        local("2025-02-28T00:00"),
                        local("2025-03-01T00:00"));
        // 31 May 2025 is a Saturday: Friday the 30th; 31 August a Sunday ending the month: Friday the 29th
        assertThat(first("0 0 1,31W 5-8 ?", 5))
                .containsExactly(
                        local("2025-05-01T00:00"),
                        local("2025-05-30T00:00"),
                        local("2025-06-01T00:00"),
                        local("2025-07-01T00:00"),
                        local("2025-07-31T00:00"));
        // 31 August 2025 is a Sunday: LW is Friday the 29th
        assertThat(first("0 0 L,LW 8 ?", 2)).containsExactly(local("2025-08-29T00:00"), local("2025-08-31T00:00"));
        assertThat(first("0 0 L-1,15 2 ?", 2)).containsExactly(local("2025-02-15T00:00"), local("2025-02-27T00:00"));
    }

    @Test
    void aDayOfMonthListWithLastDayOrsWithARestrictedDayOfWeek() {
        // January 2025: Mondays 6, 13, 20, 27; L is Friday the 31st
        assertThat(first("0 0 L,15 1 MON", 6))
                .containsExactly(
                        local("2025-01-06T00:00"),
                        local("2025-01-13T00:00"),
                        local("2025-01-15T00:00"),
                        local("2025-01-20T00:00"),
                        local("2025-01-27T00:00"),
                        local("2025-01-31T00:00"));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"0 0 ?,L * ?|day-of-month", "0 0 1 * ?,MON|day-of-week", "0 0 1,? * MON|day-of-month"})
    void aQuestionMarkInsideAListIsRefusedAsNewInputNamingTheField(String cron, String field) {
        assertThatThrownBy(() -> Recurrences.checkInput(RecurrenceSpec.cron(cron, ZoneOffset.UTC)))
                .isInstanceOfSatisfying(InvalidRecurrenceException.class, e -> {
                    assertThat(e.code()).isEqualTo("invalid_cron");
                    assertThat(e.param()).isEqualTo("cron");
                    assertThat(e.getMessage()).contains(field);
                });
    }

    /** Day-of-week {@code ?,MON} was accepted and stored before, read by cron-utils as MON: it still loads so. */
    @Test
    void aStoredQuestionMarkInsideAListStillCompilesWithoutIt() {
        assertThat(first("0 0 1 * ?,MON", 6)).isEqualTo(first("0 0 1 * MON", 6));
        assertThat(first("0 0 ? * ?,MON", 3)).isEqualTo(first("0 0 ? * MON", 3));
    }

    @Test
    void restrictedDayOfMonthAndDayOfWeekCombineWithOrAsInVixieCron() {
        // 1 February 2025 is a Saturday; Mondays are 3, 10, 17 February
        assertThat(first("0 9 1 2 MON", 3))
                .containsExactly(local("2025-02-01T09:00"), local("2025-02-03T09:00"), local("2025-02-10T09:00"));
    }

    @Test
    void aDayFieldStartingWithAStarMakesTheOtherOneAndAsInVixieCron() {
        // */10 matches days 1, 11, 21, 31; the first Mondays among them are 31 March and 21 April 2025
        assertThat(first("0 9 */10 * MON", 2)).containsExactly(local("2025-03-31T09:00"), local("2025-04-21T09:00"));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "61 * * * *|minute",
                "* 25 * * *|hour",
                "* * 32 * *|day-of-month",
                "* * * 13 *|month",
                "* * * * FOO|day-of-week",
                "* * * * MON-FOO|MON-FOO",
                "@reboot|fields",
                "70 * * * * *|second",
                "* * * *|5",
                "* * * * * * *|7 fields",
                "' '|empty",
            })
    void invalidExpressionsNameTheField(String cron, String mentioned) {
        assertThatThrownBy(() -> Recurrences.compile(RecurrenceSpec.cron(cron, ZoneOffset.UTC)))
                .isInstanceOfSatisfying(InvalidRecurrenceException.class, e -> {
                    assertThat(e.param()).isEqualTo("cron");
                    assertThat(e.getMessage()).contains(mentioned);
                });
    }

    @Test
    void impossibleCronIsRejected() {
        assertThatThrownBy(() -> Recurrences.compile(RecurrenceSpec.cron("0 0 30 2 *", ZoneOffset.UTC)))
                .isInstanceOfSatisfying(
                        InvalidRecurrenceException.class,
                        e -> assertThat(e.code()).isEqualTo("rule_has_no_occurrences"));
    }

    @Test
    void cronRejectsCountButHonoursUntilAndExdates() {
        RecurrenceSpec counted =
                new RecurrenceSpec(RecurrenceSpec.Kind.CRON, "0 9 * * *", ZoneOffset.UTC, null, List.of(), null, 3);
        assertThatThrownBy(() -> Recurrences.compile(counted))
                .isInstanceOfSatisfying(
                        InvalidRecurrenceException.class,
                        e -> assertThat(e.param()).isEqualTo("count"));
        RecurrenceSpec bounded = new RecurrenceSpec(
                RecurrenceSpec.Kind.CRON,
                "0 9 * * *",
                ZoneOffset.UTC,
                null,
                List.of(local("2025-01-02T09:00")),
                Instant.parse("2025-01-04T09:00:00Z"),
                null);
        assertThat(locals(Recurrences.compile(bounded).preview(JAN_1_2025, 10)))
                .containsExactly(local("2025-01-01T09:00"), local("2025-01-03T09:00"), local("2025-01-04T09:00"));
    }

    /**
     * The constructs read differently since the day-of-month list and day-of-week {@code L} changes, found as parse
     * splits them: a day-of-month list with a special element, a day-of-week {@code L} alone (in a list too); not
     * {@code L} alone in day-of-month, {@code nL} in day-of-week, a plain list, nor an RRULE.
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "0 9 L,15 * *       | day-of-month list 'L,15'",
                "0 9 1,31W * ?      | day-of-month list '1,31W'",
                "0 0 9 l-2,lw * ?   | day-of-month list 'L-2,LW'",
                "0 12 * * L         | day-of-week L in 'L' is Saturday",
                "0 12 * * mon,L     | day-of-week L in 'MON,L' is Saturday",
                "0 9 L * 5L         | ",
                "0 9 1,15 * MON-FRI | ",
                "0 0 LW * ?         | ",
                "@weekly            | ",
            })
    void theCronsReadDifferentlyThanBeforeAreNamedWithTheirMeaningNow(String cron, String named) {
        List<String> changed = Recurrences.changedReadings(RecurrenceSpec.cron(cron, ZoneOffset.UTC));
        if (named == null) assertThat(changed).isEmpty();
        else assertThat(changed).singleElement().asString().startsWith(named);
    }

    @Test
    void anRruleHasNoChangedReading() {
        assertThat(Recurrences.changedReadings(RecurrenceSpec.rrule("FREQ=DAILY", ZoneOffset.UTC, null)))
                .isEmpty();
    }
}
