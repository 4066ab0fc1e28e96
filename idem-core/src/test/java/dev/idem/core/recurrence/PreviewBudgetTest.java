package dev.idem.core.recurrence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** One preview call examines at most {@link RuleExpander#PREVIEW_BUDGET} dates or periods, and says when it stopped. */
class PreviewBudgetTest {

    /**
     * Every 3,601 seconds, only at 00:00:00: the grid meets midnight once every 3,601 days, and the expansion
     * examines at least one period a day (it skips filtered-out hours, not days), so each occurrence costs at least
     * 3,601 periods. Without a budget per call, 1,000 of them cost a second or more.
     */
    static final String SPARSE = "FREQ=SECONDLY;INTERVAL=3601;BYHOUR=0;BYMINUTE=0;BYSECOND=0";

    @Test
    void aSparseRulesPreviewStopsAtTheBudgetWithWhatItFoundAndSaysSo() {
        Recurrence r = Fixtures.rrule(SPARSE, ZoneOffset.UTC, "1970-01-01T00:00:01");

        Preview p = r.previewSearch(null, 1000);

        assertThat(p.stoppedEarly()).isTrue();
        assertThat(p.examined()).isBetween(RuleExpander.PREVIEW_BUDGET, Recurrences.PREVIEW_BUDGET + 1);
        assertThat(p.occurrences()).hasSizeBetween(1, (int) (RuleExpander.PREVIEW_BUDGET / 3601) + 1);
        // what it found is the rule's own beginning: the unbudgeted query of the same span agrees
        Instant last = p.occurrences().get(p.occurrences().size() - 1).utc();
        assertThat(r.between(Instant.parse("1970-01-01T00:00:00Z"), last, 1000)).isEqualTo(p.occurrences());
        assertThat(r.preview(null, 1000)).isEqualTo(p.occurrences());
    }

    @Test
    void aNormalRulesPreviewIsWholeAndNotMarkedStopped() {
        Preview daily = Fixtures.rrule("FREQ=DAILY;BYHOUR=9", Fixtures.NEW_YORK, "2027-01-01T09:00")
                .previewSearch(null, 1000);
        assertThat(daily.occurrences()).hasSize(1000);
        assertThat(daily.stoppedEarly()).isFalse();

        // 1,000 leap days span about 4,000 years (1.5 million dates examined): still listed whole
        Preview leapDays = Fixtures.rrule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", ZoneOffset.UTC, "1972-01-01T00:00")
                .previewSearch(null, 1000);
        assertThat(leapDays.occurrences()).hasSize(1000);
        assertThat(leapDays.stoppedEarly()).isFalse();
        assertThat(leapDays.examined()).isBetween(1_000_000L, Recurrences.PREVIEW_BUDGET);
    }

    @Test
    void aRuleThatEndsIsNotMarkedStopped() {
        Preview counted = Fixtures.rrule("FREQ=WEEKLY;COUNT=3", ZoneOffset.UTC, "2027-01-01T09:00")
                .previewSearch(null, 1000);
        assertThat(counted.occurrences()).hasSize(3);
        assertThat(counted.stoppedEarly()).isFalse();

        // a sparse rule whose UNTIL comes before the budget runs out ended, it did not stop early
        Preview until = Fixtures.rrule(SPARSE + ";UNTIL=19900101T000000Z", ZoneOffset.UTC, "1970-01-01T00:00:01")
                .previewSearch(null, 1000);
        assertThat(until.occurrences()).isNotEmpty();
        assertThat(until.stoppedEarly()).isFalse();

        // and one that runs into year 9999
        Preview endOfTime = Fixtures.rrule("FREQ=YEARLY", ZoneOffset.UTC, "9990-06-01T09:00")
                .previewSearch(null, 1000);
        assertThat(endOfTime.occurrences()).hasSize(10);
        assertThat(endOfTime.stoppedEarly()).isFalse();
    }

    @Test
    void aRuleWithNoOccurrenceWithinTheSearchIsStillRejectedAtCompile() {
        assertThatThrownBy(
                        () -> Fixtures.rrule("FREQ=MINUTELY;INTERVAL=2;BYMINUTE=1", ZoneOffset.UTC, "2027-01-01T00:00"))
                .isInstanceOfSatisfying(
                        InvalidRecurrenceException.class,
                        e -> assertThat(e.code()).isEqualTo("rule_has_no_occurrences"));
    }

    @Test
    void theBudgetIsPerCallSoTheSchedulersOwnQueriesStillReachPastIt() {
        Recurrence r = Fixtures.rrule(SPARSE, ZoneOffset.UTC, "1970-01-01T00:00:01");
        int found = r.previewSearch(null, 1000).occurrences().size();
        assertThat(r.between(Instant.parse("1970-01-01T00:00:00Z"), Instant.parse("9999-01-01T00:00:00Z"), 1000))
                .hasSizeGreaterThan(found);
    }
}
