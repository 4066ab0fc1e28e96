package dev.idem.core.recurrence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Generated 5-field crons (lists, ranges, steps, names) against a brute-force matcher written
 * from the Vixie cron man page, minute by minute: checks cron-utils and our day OR logic.
 */
class CronOracleTest {

    private static final String[] MONTHS = {
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
    };
    private static final String[] DAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

    @Provide
    Arbitrary<String> crons() {
        return Combinators.combine(
                        field(0, 59, null),
                        field(0, 23, null),
                        field(1, 31, null),
                        field(1, 12, MONTHS),
                        field(0, 6, DAYS))
                .as((mi, h, dom, mon, dow) -> mi + " " + h + " " + dom + " " + mon + " " + dow);
    }

    private static Arbitrary<String> field(int min, int max, String[] names) {
        Arbitrary<Integer> value = Arbitraries.integers().between(min, max);
        Arbitrary<String> single = value.map(v -> names != null && v % 2 == 0 ? names[v - min] : Integer.toString(v));
        Arbitrary<String> range = Combinators.combine(value, value).as((a, b) -> Math.min(a, b) + "-" + Math.max(a, b));
        // cron-utils refuses a step wider than the field's range (Vixie would accept it): not generated
        Arbitrary<String> stepped = Combinators.combine(
                        range, Arbitraries.integers().between(1, Math.min(10, max - min)))
                .as((r, s) -> r + "/" + s);
        Arbitrary<String> item = Arbitraries.oneOf(single, range, stepped);
        Arbitrary<String> list = item.list().ofMinSize(1).ofMaxSize(3).map(l -> String.join(",", l));
        Arbitrary<String> star = Arbitraries.of("*", "*/" + (max > 20 ? 7 : 2), "*/3");
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, star), net.jqwik.api.Tuple.of(2, list));
    }

    @Property(tries = 200)
    void cronMatchesABruteForceVixieMatcher(@ForAll("crons") String cron) {
        Instant from = Instant.parse("2025-01-01T00:00:00Z");
        List<LocalDateTime> got;
        try {
            got = Fixtures.locals(Recurrences.compile(RecurrenceSpec.cron(cron, ZoneOffset.UTC))
                    .preview(from, 20));
        } catch (InvalidRecurrenceException e) {
            assertThat(e.code()).as(cron + ": " + e.getMessage()).isEqualTo("rule_has_no_occurrences");
            assertThat(bruteForce(cron, LocalDateTime.of(2025, 1, 1, 0, 1), 1, 9 * 366 * 24 * 60))
                    .as(cron)
                    .isEmpty();
            return;
        }
        LocalDateTime start = LocalDateTime.of(2025, 1, 1, 0, 1);
        int horizonMinutes = 9 * 366 * 24 * 60;
        List<LocalDateTime> expected = bruteForce(cron, start, 20, horizonMinutes);
        // a sparse cron (say "0 0 */3 APR SAT") can have fewer than 20 occurrences inside the matcher's nine
        // years: then compare what both see within them, and the preview must still have found its 20
        if (expected.size() < 20) {
            LocalDateTime horizonEnd = start.plusMinutes(horizonMinutes);
            assertThat(got.stream().filter(t -> t.isBefore(horizonEnd)).toList())
                    .as(cron)
                    .isEqualTo(expected);
            assertThat(got).as(cron).hasSize(20);
        } else {
            assertThat(got).as(cron).isEqualTo(expected);
        }
    }

    /** Found by a random seed: fewer than 20 occurrences in the matcher's nine years (about two a year). */
    @net.jqwik.api.Example
    void aCronSparserThanTheMatchersHorizonIsComparedWithinIt() {
        cronMatchesABruteForceVixieMatcher("0 0 */3 APR SAT");
    }

    private static List<LocalDateTime> bruteForce(String cron, LocalDateTime start, int n, int maxMinutes) {
        String[] f = cron.toUpperCase(Locale.ROOT).split(" ");
        boolean[] minute = parse(f[0], 0, 59, null);
        boolean[] hour = parse(f[1], 0, 23, null);
        boolean[] dom = parse(f[2], 1, 31, null);
        boolean[] month = parse(f[3], 1, 12, MONTHS);
        boolean[] dow = parse(f[4], 0, 7, DAYS);
        dow[0] |= dow[7];
        boolean or = !f[2].startsWith("*") && !f[4].startsWith("*");
        List<LocalDateTime> out = new ArrayList<>();
        LocalDateTime t = start;
        for (int i = 0; i < maxMinutes && out.size() < n; i++, t = t.plusMinutes(1)) {
            boolean domOk = dom[t.getDayOfMonth()];
            boolean dowOk = dow[t.getDayOfWeek().getValue() % 7];
            boolean dayOk = or ? domOk || dowOk : domOk && dowOk;
            if (minute[t.getMinute()] && hour[t.getHour()] && month[t.getMonthValue()] && dayOk) {
                out.add(t);
            }
        }
        return out;
    }

    /** The values a plain field (values, names, ranges, steps, lists) matches, indexed by value. */
    static boolean[] parse(String field, int min, int max, String[] names) {
        boolean[] m = new boolean[max + 1];
        for (String item : field.split(",")) {
            String[] stepSplit = item.split("/");
            int step = stepSplit.length > 1 ? Integer.parseInt(stepSplit[1]) : 1;
            int lo;
            int hi;
            if (stepSplit[0].equals("*")) {
                lo = min;
                hi = max == 7 ? 6 : max;
            } else if (stepSplit[0].contains("-")) {
                String[] r = stepSplit[0].split("-");
                lo = value(r[0], min, names);
                hi = value(r[1], min, names);
            } else {
                lo = value(stepSplit[0], min, names);
                hi = stepSplit.length > 1 ? max : lo;
            }
            for (int v = lo; v <= hi; v += step) {
                m[v] = true;
            }
        }
        return m;
    }

    private static int value(String text, int min, String[] names) {
        if (names != null) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(text)) {
                    return i + min;
                }
            }
        }
        return Integer.parseInt(text);
    }
}
