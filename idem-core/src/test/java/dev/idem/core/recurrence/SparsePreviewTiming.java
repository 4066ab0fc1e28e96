package dev.idem.core.recurrence;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Prints the CPU one preview of 1,000 occurrences costs for the sparsest rules we could write (and two normal
 * ones), best of 3 warm calls; a figure to read, never asserted. Only {@link Recurrences#preview} is used, so the
 * same main measures a build from before the per-call budget. Run after {@code mvn -pl idem-core -am
 * test-compile}:
 *
 * <pre>
 * java -cp idem-core/target/test-classes:idem-core/target/classes:idem-wire/target/classes:$HOME/.m2/repository/com/cronutils/cron-utils/9.2.1/cron-utils-9.2.1.jar:$HOME/.m2/repository/org/slf4j/slf4j-api/2.0.17/slf4j-api-2.0.17.jar dev.idem.core.recurrence.SparsePreviewTiming
 * </pre>
 */
public final class SparsePreviewTiming {
    private SparsePreviewTiming() {}

    public static void main(String[] args) {
        String[][] rules = {
            // one occurrence per 86,400 periods (the grid meets midnight every 3,601 days): the worst we found
            {"FREQ=SECONDLY;INTERVAL=3601;BYHOUR=0;BYMINUTE=0;BYSECOND=0", "0001-01-02T00:00:01"},
            {"FREQ=SECONDLY;INTERVAL=3601;BYHOUR=0;BYMINUTE=0;BYSECOND=0", "1970-01-01T00:00:01"},
            {"FREQ=SECONDLY;INTERVAL=86401;BYHOUR=0;BYMINUTE=0;BYSECOND=0", "1970-01-01T00:00:01"},
            {"FREQ=HOURLY;INTERVAL=23;BYHOUR=0;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", "1970-01-01T00:00:00"},
            {"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", "1970-01-01T00:00:00"},
            {"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", "1972-01-01T00:00:00"},
            {"FREQ=DAILY;BYHOUR=9;BYMINUTE=0", "2027-01-01T00:00:00"},
        };
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        for (String[] r : rules) {
            RecurrenceSpec spec = RecurrenceSpec.rrule(r[0], ZoneOffset.UTC, LocalDateTime.parse(r[1]));
            long best = Long.MAX_VALUE;
            List<Occurrence> found = List.of();
            for (int i = 0; i < 3; i++) {
                long start = cpu.getCurrentThreadCpuTime();
                found = Recurrences.preview(spec, Recurrences.MAX_PREVIEW);
                best = Math.min(best, cpu.getCurrentThreadCpuTime() - start);
            }
            System.out.printf(
                    "%-70s from %s: %4d occurrences, last %s, %5d ms CPU%n",
                    r[0], r[1], found.size(), found.get(found.size() - 1).local(), best / 1_000_000);
        }
    }
}
