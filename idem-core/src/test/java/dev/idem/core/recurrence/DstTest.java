package dev.idem.core.recurrence;

import static dev.idem.core.recurrence.Fixtures.LORD_HOWE;
import static dev.idem.core.recurrence.Fixtures.NEW_YORK;
import static dev.idem.core.recurrence.Fixtures.PARIS;
import static dev.idem.core.recurrence.Fixtures.local;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The documented conventions (docs/scheduling.md, "Time zones and daylight saving") at DST transitions: a local time in a spring-forward gap moves forward by
 * the gap's length (and is labelled with the time actually on the clock); an ambiguous
 * fall-back time is the first of its two instants. Same for RRULE and cron.
 */
class DstTest {

    private static List<Occurrence> rrule(String rule, ZoneId zone, String dtstart, int n) {
        return Fixtures.rrule(rule, zone, dtstart).preview(null, n);
    }

    private static List<Occurrence> cron(String expr, ZoneId zone, String fromUtc, int n) {
        return Recurrences.compile(RecurrenceSpec.cron(expr, zone)).preview(Instant.parse(fromUtc), n);
    }

    private static Occurrence occ(String local, String utc) {
        return new Occurrence(local(local), Instant.parse(utc));
    }

    @Test
    void newYorkSpringForwardMovesGapTimeForwardByTheGap() {
        assertThat(rrule("FREQ=DAILY;COUNT=4", NEW_YORK, "2025-03-07T02:30", 4))
                .containsExactly(
                        occ("2025-03-07T02:30", "2025-03-07T07:30:00Z"),
                        occ("2025-03-08T02:30", "2025-03-08T07:30:00Z"),
                        occ("2025-03-09T03:30", "2025-03-09T07:30:00Z"),
                        occ("2025-03-10T02:30", "2025-03-10T06:30:00Z"));
    }

    @Test
    void newYorkFallBackTakesTheFirstInstant() {
        assertThat(rrule("FREQ=DAILY;COUNT=3", NEW_YORK, "2025-11-01T01:30", 3))
                .containsExactly(
                        occ("2025-11-01T01:30", "2025-11-01T05:30:00Z"),
                        occ("2025-11-02T01:30", "2025-11-02T05:30:00Z"),
                        occ("2025-11-03T01:30", "2025-11-03T06:30:00Z"));
    }

    @Test
    void hourlyRuleFollowsLocalTimeSoTheRepeatedHourFiresOnce() {
        assertThat(rrule("FREQ=HOURLY;COUNT=4", NEW_YORK, "2025-11-02T00:00", 4))
                .containsExactly(
                        occ("2025-11-02T00:00", "2025-11-02T04:00:00Z"),
                        occ("2025-11-02T01:00", "2025-11-02T05:00:00Z"),
                        occ("2025-11-02T02:00", "2025-11-02T07:00:00Z"),
                        occ("2025-11-02T03:00", "2025-11-02T08:00:00Z"));
    }

    @Test
    void hourlyRuleAcrossSpringForwardFiresOnceAtTheShiftedTime() {
        assertThat(rrule("FREQ=HOURLY;COUNT=4", NEW_YORK, "2025-03-09T00:00", 4))
                .containsExactly(
                        occ("2025-03-09T00:00", "2025-03-09T05:00:00Z"),
                        occ("2025-03-09T01:00", "2025-03-09T06:00:00Z"),
                        occ("2025-03-09T03:00", "2025-03-09T07:00:00Z"),
                        occ("2025-03-09T04:00", "2025-03-09T08:00:00Z"));
    }

    @Test
    void aSkippedCalendarDayCollapsesOntoTheNextDay() {
        // Samoa skipped 30 December 2011 entirely (a 24-hour gap)
        assertThat(rrule("FREQ=DAILY;COUNT=4", ZoneId.of("Pacific/Apia"), "2011-12-28T09:00", 4))
                .extracting(Occurrence::local)
                .containsExactly(
                        local("2011-12-28T09:00"),
                        local("2011-12-29T09:00"),
                        local("2011-12-31T09:00"),
                        local("2012-01-01T09:00"));
    }

    @Test
    void minutelyRuleAcrossTheGapIsStrictlyIncreasingWithoutDuplicates() {
        assertThat(rrule("FREQ=MINUTELY;INTERVAL=15;COUNT=6", NEW_YORK, "2025-03-09T01:30", 6))
                .containsExactly(
                        occ("2025-03-09T01:30", "2025-03-09T06:30:00Z"),
                        occ("2025-03-09T01:45", "2025-03-09T06:45:00Z"),
                        occ("2025-03-09T03:00", "2025-03-09T07:00:00Z"),
                        occ("2025-03-09T03:15", "2025-03-09T07:15:00Z"),
                        occ("2025-03-09T03:30", "2025-03-09T07:30:00Z"),
                        occ("2025-03-09T03:45", "2025-03-09T07:45:00Z"));
    }

    @Test
    void parisGapAndOverlap() {
        assertThat(rrule("FREQ=DAILY;COUNT=2", PARIS, "2025-03-29T02:30", 2))
                .containsExactly(
                        occ("2025-03-29T02:30", "2025-03-29T01:30:00Z"),
                        occ("2025-03-30T03:30", "2025-03-30T01:30:00Z"));
        assertThat(rrule("FREQ=DAILY;COUNT=2", PARIS, "2025-10-26T02:30", 2))
                .containsExactly(
                        occ("2025-10-26T02:30", "2025-10-26T00:30:00Z"),
                        occ("2025-10-27T02:30", "2025-10-27T01:30:00Z"));
    }

    @Test
    void lordHoweThirtyMinuteGapAndOverlap() {
        assertThat(rrule("FREQ=DAILY;BYHOUR=2;BYMINUTE=15;COUNT=2", LORD_HOWE, "2025-10-04T00:00", 2))
                .containsExactly(
                        occ("2025-10-04T02:15", "2025-10-03T15:45:00Z"),
                        occ("2025-10-05T02:45", "2025-10-04T15:45:00Z"));
        assertThat(rrule("FREQ=DAILY;BYHOUR=1;BYMINUTE=45;COUNT=2", LORD_HOWE, "2025-04-06T00:00", 2))
                .containsExactly(
                        occ("2025-04-06T01:45", "2025-04-05T14:45:00Z"),
                        occ("2025-04-07T01:45", "2025-04-06T15:15:00Z"));
    }

    @Test
    void firstAfterJustBeforeTheGapFindsTheShiftedOccurrence() {
        Recurrence r = Fixtures.rrule("FREQ=DAILY", NEW_YORK, "2025-01-01T02:30");
        assertThat(r.firstAfter(Instant.parse("2025-03-09T06:00:00Z")))
                .contains(occ("2025-03-09T03:30", "2025-03-09T07:30:00Z"));
    }

    @Test
    void firstAfterAgreesWithPreviewAroundTransitions() {
        // dtstarts a day before each zone's 2025 transitions, so 400 occurrences span them
        Map<ZoneId, List<String>> starts = Map.of(
                NEW_YORK, List.of("2025-03-08T00:00", "2025-11-01T00:00"),
                PARIS, List.of("2025-03-29T00:00", "2025-10-25T00:00"),
                LORD_HOWE, List.of("2025-04-05T00:00", "2025-10-04T00:00"));
        for (ZoneId zone : starts.keySet()) {
            for (String rule : List.of(
                    "FREQ=MINUTELY;INTERVAL=7",
                    "FREQ=HOURLY;BYMINUTE=10,40",
                    "FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=15,45")) {
                for (String dtstart : starts.get(zone)) {
                    Recurrence r = Fixtures.rrule(rule, zone, dtstart);
                    List<Occurrence> all = r.preview(null, 400);
                    assertAgreesNearTransition(r, all, zone, 60, zone + " " + rule);
                }
            }
            for (String cron : List.of("*/7 * * * *", "10,40 * * * *", "15,45 1-3 * * *")) {
                for (String dtstart : starts.get(zone)) {
                    Recurrence r = Recurrences.compile(RecurrenceSpec.cron(cron, zone));
                    assertAgreesNearTransition(
                            r, r.preview(local(dtstart).atZone(zone).toInstant(), 400), zone, 420, zone + " " + cron);
                }
            }
        }
    }

    /** Checks firstAfter every {@code stepSeconds} from 3 hours before to 3 hours after the next transition. */
    private static void assertAgreesNearTransition(
            Recurrence r, List<Occurrence> all, ZoneId zone, int stepSeconds, String what) {
        Instant transition = zone.getRules().nextTransition(all.get(0).utc()).getInstant();
        Instant from = transition.minusSeconds(3 * 3600);
        Instant to = transition.plusSeconds(3 * 3600);
        assertThat(all.get(all.size() - 2).utc()).as(what).isAfter(to);
        for (Instant x = from; x.isBefore(to); x = x.plusSeconds(stepSeconds)) {
            Instant at = x;
            Occurrence expected =
                    all.stream().filter(o -> o.utc().isAfter(at)).findFirst().orElseThrow();
            assertThat(r.firstAfter(x)).as("%s after %s", what, x).contains(expected);
        }
    }

    @Test
    void cronInNewYorkAcrossSpringForwardAndFallBack() {
        assertThat(cron("30 2 * * *", NEW_YORK, "2025-03-08T00:00:00Z", 3))
                .containsExactly(
                        occ("2025-03-08T02:30", "2025-03-08T07:30:00Z"),
                        occ("2025-03-09T03:30", "2025-03-09T07:30:00Z"),
                        occ("2025-03-10T02:30", "2025-03-10T06:30:00Z"));
        assertThat(cron("30 1 * * *", NEW_YORK, "2025-11-01T12:00:00Z", 2))
                .containsExactly(
                        occ("2025-11-02T01:30", "2025-11-02T05:30:00Z"),
                        occ("2025-11-03T01:30", "2025-11-03T06:30:00Z"));
    }

    @Test
    void cronEveryHalfHourDoesNotRepeatTheFallBackHour() {
        assertThat(cron("*/30 * * * *", NEW_YORK, "2025-11-02T03:59:00Z", 5))
                .containsExactly(
                        occ("2025-11-02T00:00", "2025-11-02T04:00:00Z"),
                        occ("2025-11-02T00:30", "2025-11-02T04:30:00Z"),
                        occ("2025-11-02T01:00", "2025-11-02T05:00:00Z"),
                        occ("2025-11-02T01:30", "2025-11-02T05:30:00Z"),
                        occ("2025-11-02T02:00", "2025-11-02T07:00:00Z"));
    }

    @Test
    void cronInParisAndLordHowe() {
        assertThat(cron("0 30 2 * * *", PARIS, "2025-03-29T12:00:00Z", 2))
                .containsExactly(
                        occ("2025-03-30T03:30", "2025-03-30T01:30:00Z"),
                        occ("2025-03-31T02:30", "2025-03-31T00:30:00Z"));
        assertThat(cron("30 2 * * *", PARIS, "2025-10-25T12:00:00Z", 1))
                .containsExactly(occ("2025-10-26T02:30", "2025-10-26T00:30:00Z"));
        assertThat(cron("15 2 * * *", LORD_HOWE, "2025-10-04T12:00:00Z", 1))
                .containsExactly(occ("2025-10-05T02:45", "2025-10-04T15:45:00Z"));
        assertThat(cron("45 1 * * *", LORD_HOWE, "2025-04-05T12:00:00Z", 1))
                .containsExactly(occ("2025-04-06T01:45", "2025-04-05T14:45:00Z"));
    }
}
