package dev.idem.core.recurrence;

import static dev.idem.core.recurrence.Fixtures.local;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ValidationTest {

    private static void rejects(ThrowingCallable call, String param, String code, String mentioned) {
        assertThatThrownBy(call).isInstanceOfSatisfying(InvalidRecurrenceException.class, e -> {
            assertThat(e.param()).isEqualTo(param);
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.getMessage()).contains(mentioned);
        });
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "''|empty",
                "BYDAY=MO|needs FREQ",
                "FREQ=FORTNIGHTLY|FREQ=FORTNIGHTLY",
                "FREQ=DAILY;BYHOUR=24|BYHOUR value 24",
                "FREQ=DAILY;BYMINUTE=-1|BYMINUTE value -1",
                "FREQ=DAILY;BYSECOND=60|BYSECOND value 60",
                "FREQ=MONTHLY;BYMONTHDAY=0|BYMONTHDAY value 0",
                "FREQ=MONTHLY;BYMONTHDAY=32|BYMONTHDAY value 32",
                "FREQ=YEARLY;BYYEARDAY=367|BYYEARDAY",
                "FREQ=YEARLY;BYWEEKNO=54|BYWEEKNO",
                "FREQ=YEARLY;BYMONTH=13|BYMONTH value 13",
                "FREQ=WEEKLY;BYDAY=XX|BYDAY value 'XX'",
                "FREQ=WEEKLY;BYDAY=+1MO|needs FREQ=MONTHLY or YEARLY",
                "FREQ=YEARLY;BYWEEKNO=1;BYDAY=1MO|BYWEEKNO",
                "FREQ=MONTHLY;BYWEEKNO=1|BYWEEKNO is only allowed with FREQ=YEARLY",
                "FREQ=MONTHLY;BYYEARDAY=1|BYYEARDAY is not allowed",
                "FREQ=WEEKLY;BYMONTHDAY=1|BYMONTHDAY is not allowed",
                "FREQ=DAILY;INTERVAL=0|INTERVAL=0",
                "FREQ=DAILY;COUNT=-2|COUNT=-2",
                "FREQ=DAILY;UNTIL=2025-01-01|UNTIL=2025-01-01",
                "FREQ=DAILY;FREQ=WEEKLY|FREQ appears twice",
                "FREQ=DAILY;COLOR=BLUE|COLOR is not supported",
                "FREQ=DAILY;BYHOUR|NAME=VALUE",
                "FREQ=DAILY;WKST=XY|WKST",
            })
    void invalidRulesNameTheBadPart(String rule, String mentioned) {
        rejects(() -> Fixtures.rrule(rule, ZoneOffset.UTC, "2025-01-01T09:00"), "rrule", "invalid_rrule", mentioned);
    }

    @Test
    void acceptsPrefixLowerCaseAndSpaces() {
        assertThatCode(() ->
                        Fixtures.rrule("rrule:freq=weekly; byday=mo,fr ;wkst=su", ZoneOffset.UTC, "2025-01-01T09:00"))
                .doesNotThrowAnyException();
    }

    @Test
    void countOrUntilGivenTwiceMustAgree() {
        RecurrenceSpec agreeing = new RecurrenceSpec(
                RecurrenceSpec.Kind.RRULE,
                "FREQ=DAILY;COUNT=3",
                ZoneOffset.UTC,
                local("2025-01-01T09:00"),
                List.of(),
                null,
                3);
        assertThat(Recurrences.compile(agreeing).preview(null, 10)).hasSize(3);
        rejects(
                () -> Recurrences.compile(new RecurrenceSpec(
                        RecurrenceSpec.Kind.RRULE,
                        "FREQ=DAILY;COUNT=3",
                        ZoneOffset.UTC,
                        local("2025-01-01T09:00"),
                        List.of(),
                        null,
                        4)),
                "count",
                "conflicting_count",
                "COUNT=3");
        rejects(
                () -> Recurrences.compile(new RecurrenceSpec(
                        RecurrenceSpec.Kind.RRULE,
                        "FREQ=DAILY;UNTIL=20250105T000000Z",
                        ZoneOffset.UTC,
                        local("2025-01-01T09:00"),
                        List.of(),
                        Instant.parse("2025-01-06T00:00:00Z"),
                        null)),
                "until",
                "conflicting_until",
                "UNTIL");
        rejects(
                () -> Recurrences.compile(new RecurrenceSpec(
                        RecurrenceSpec.Kind.RRULE,
                        "FREQ=DAILY",
                        ZoneOffset.UTC,
                        local("2025-01-01T09:00"),
                        List.of(),
                        null,
                        0)),
                "count",
                "invalid_count",
                "between 1 and 1000000");
        rejects(
                () -> Fixtures.rrule("FREQ=SECONDLY;COUNT=2000000", ZoneOffset.UTC, "2025-01-01T09:00"),
                "count",
                "invalid_count",
                "use until");
    }

    @Test
    void untilAndCountFieldsApplyToTheRule() {
        RecurrenceSpec spec = new RecurrenceSpec(
                RecurrenceSpec.Kind.RRULE,
                "FREQ=DAILY",
                ZoneOffset.UTC,
                local("2025-01-01T09:00"),
                List.of(),
                Instant.parse("2025-01-03T09:00:00Z"),
                null);
        assertThat(Recurrences.compile(spec).preview(null, 10)).hasSize(3);
    }

    @Test
    void rruleNeedsDtstart() {
        rejects(
                () -> Recurrences.compile(RecurrenceSpec.rrule("FREQ=DAILY", ZoneOffset.UTC, null)),
                "dtstart",
                "missing_dtstart",
                "dtstart");
    }

    @Test
    void unknownZonesAreRejectedWithAHint() {
        rejects(() -> Recurrences.zone("Mars/Olympus_Mons"), "timezone", "invalid_timezone", "Mars/Olympus_Mons");
        rejects(() -> Recurrences.zone("europe/paris"), "timezone", "invalid_timezone", "did you mean Europe/Paris");
        rejects(() -> Recurrences.zone(" "), "timezone", "invalid_timezone", "empty");
        assertThat(Recurrences.zone("Australia/Lord_Howe").getId()).isEqualTo("Australia/Lord_Howe");
        assertThat(Recurrences.zone("UTC").getId()).isEqualTo("UTC");
    }

    /** Issue 18.9: ZoneId.of parses offsets, Etc/*, SystemV/* and aliases; a schedule takes UTC or an IANA region only. */
    @Test
    void zonesThatAreNotIanaRegionsAreRefusedWithWhatToUseInstead() {
        for (String id :
                new String[] {"Z", "GMT+14", "UTC+01:00", "+02:00", "SystemV/AST4", "EST5EDT", "Etc/GMT+5", "GMT0"})
            rejects(() -> Recurrences.zone(id), "timezone", "invalid_timezone", "is not an IANA region id");
        rejects(() -> Recurrences.zone("Etc/UTC"), "timezone", "invalid_timezone", "it has the rules of UTC");
        rejects(() -> Recurrences.zone("Zulu"), "timezone", "invalid_timezone", "it has the rules of UTC");
        rejects(
                () -> Recurrences.zone("US/Eastern"),
                "timezone",
                "invalid_timezone",
                "it has the rules of America/New_York");
        rejects(() -> Recurrences.zone("Japan"), "timezone", "invalid_timezone", "it has the rules of Asia/Tokyo");
        for (String id : new String[] {
            "America/Argentina/Buenos_Aires",
            "America/Indiana/Knox",
            "Antarctica/Troll",
            "Arctic/Longyearbyen",
            "Indian/Maldives",
            "Atlantic/Azores",
            "Europe/Isle_of_Man",
            "America/Port-au-Prince",
            "Etc/UTC".replace("Etc/", "")
        }) assertThat(Recurrences.zone(id).getId()).isEqualTo(id);
    }

    @Test
    void previewSizeMustBeBetweenOneAndAThousand() {
        RecurrenceSpec spec = RecurrenceSpec.rrule("FREQ=MINUTELY", ZoneOffset.UTC, local("2025-01-01T09:00"));
        rejects(() -> Recurrences.preview(spec, 0), "count", "invalid_count", "between 1 and 1000");
        rejects(() -> Recurrences.preview(spec, 1001), "count", "invalid_count", "between 1 and 1000");
        assertThat(Recurrences.preview(spec, 1000)).hasSize(1000);
    }

    @Test
    void aCountWhoseEndIsBeyondTheBudgetIsRefusedForNewSchedulesAndOrdinaryMillionsAreNot() {
        Recurrence costly = Fixtures.rrule(
                "FREQ=SECONDLY;INTERVAL=61;BYSECOND=0;COUNT=1000000", ZoneOffset.UTC, "2030-01-01T00:00");
        rejects(() -> Recurrences.checkCountEnd(costly), "count", "count_too_costly", "use a smaller count");
        // compile alone still accepts it (the check is a separate call), so a schedule stored before it still loads

        Recurrence daily =
                Fixtures.rrule("FREQ=MINUTELY;BYHOUR=9;BYMINUTE=0;COUNT=1000000", ZoneOffset.UTC, "2030-01-01T00:00");
        assertThatCode(() -> Recurrences.checkCountEnd(daily)).doesNotThrowAnyException();
        LocalDateTime millionth = local("2030-01-01T09:00").plusDays(999_999);
        assertThat(daily.between(millionth.minusDays(3).toInstant(ZoneOffset.UTC), Instant.MAX, 10))
                .as("the end the check found is the millionth day's")
                .extracting(Occurrence::local)
                .last()
                .isEqualTo(millionth);
    }
}
