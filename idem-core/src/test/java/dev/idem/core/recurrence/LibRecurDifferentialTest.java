package dev.idem.core.recurrence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.dmfs.rfc5545.DateTime;
import org.dmfs.rfc5545.recur.RecurrenceRule;
import org.dmfs.rfc5545.recur.RecurrenceRuleIterator;

/**
 * Our expander against lib-recur 0.17.1 as an independent oracle, on floating (zone-less) times
 * and only for rule shapes lib-recur is known to get right: no BYSETPOS, no BYWEEKNO, no DST.
 */
class LibRecurDifferentialTest {

    private final RecurrencePropertiesTest generators = new RecurrencePropertiesTest();

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<RecurrencePropertiesTest.SimpleRule> simpleRules() {
        return generators.simpleRules();
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<LocalDateTime> dtstarts() {
        return generators.dtstarts();
    }

    @Property(tries = 400)
    void agreesWithLibRecurOnSimpleRules(
            @ForAll("simpleRules") RecurrencePropertiesTest.SimpleRule rule, @ForAll("dtstarts") LocalDateTime dtstart)
            throws Exception {
        List<Occurrence> ours;
        try {
            ours = Recurrences.compile(RecurrenceSpec.rrule(rule.text() + ";WKST=MO", ZoneOffset.UTC, dtstart))
                    .preview(null, 30);
        } catch (InvalidRecurrenceException e) {
            Assume.that(false);
            return;
        }
        List<LocalDateTime> theirs;
        try {
            theirs = libRecur(rule.text() + ";WKST=MO", dtstart, ours.size());
        } catch (IllegalArgumentException sparse) {
            // lib-recur gives up on sparse rules ("too many empty recurrence sets"); nothing to compare
            Assume.that(false);
            return;
        }
        assertThat(Fixtures.locals(ours)).as(rule.text() + " from " + dtstart).isEqualTo(theirs);
    }

    private static List<LocalDateTime> libRecur(String rule, LocalDateTime dtstart, int n) throws Exception {
        RecurrenceRuleIterator it = new RecurrenceRule(rule)
                .iterator(new DateTime(
                        dtstart.getYear(),
                        dtstart.getMonthValue() - 1,
                        dtstart.getDayOfMonth(),
                        dtstart.getHour(),
                        dtstart.getMinute(),
                        dtstart.getSecond()));
        List<LocalDateTime> out = new ArrayList<>();
        while (it.hasNext() && out.size() < n) {
            DateTime d = it.nextDateTime();
            LocalDateTime t = LocalDateTime.of(
                    d.getYear(), d.getMonth() + 1, d.getDayOfMonth(), d.getHours(), d.getMinutes(), d.getSeconds());
            if (!t.isBefore(dtstart)) {
                out.add(t);
            }
        }
        return out;
    }
}
