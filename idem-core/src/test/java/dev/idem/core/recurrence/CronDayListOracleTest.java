package dev.idem.core.recurrence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Day lists that mix plain days with {@code L}, {@code L-n}, {@code LW} and {@code nW} (day-of-month) and with
 * {@code n#k}, {@code nL} and {@code L} alone (day-of-week), against a day-by-day matcher written from Quartz's definitions of
 * those elements (and Vixie's OR of two restricted day fields). cron-utils alone dropped the special
 * day-of-month elements of a list; {@link CronOracleTest} covers the plain elements.
 */
class CronDayListOracleTest {

    private static final LocalDate START = LocalDate.of(2025, 1, 1);
    private static final int HORIZON_DAYS = 9 * 366;
    private static final int N = 24;

    @Provide
    Arbitrary<String> crons() {
        Arbitrary<String> month = Arbitraries.of("*", "*", "2", "2,4,6,9,11", "1-6", "*/3", "2,3");
        return Combinators.combine(domField(), month, dowField())
                .as((dom, mon, dow) -> "0 0 " + dom + " " + mon + " " + dow)
                // both day fields ? is refused (invalid_cron), as in Quartz
                .filter(c -> !(c.split(" ")[2].equals("?") && c.split(" ")[4].equals("?")));
    }

    private static Arbitrary<String> domField() {
        Arbitrary<Integer> day = Arbitraries.integers().between(1, 31);
        Arbitrary<String> plain = Arbitraries.oneOf(
                day.map(String::valueOf),
                Combinators.combine(day, day).as((a, b) -> Math.min(a, b) + "-" + Math.max(a, b)),
                Combinators.combine(day, Arbitraries.integers().between(2, 10)).as((a, s) -> a + "/" + s));
        Arbitrary<String> special = Arbitraries.oneOf(
                day.map(d -> d + "W"),
                Arbitraries.just("L"),
                Arbitraries.just("LW"),
                Arbitraries.integers().between(1, 30).map(n -> "L-" + n));
        Arbitrary<String> list = Arbitraries.frequencyOf(Tuple.of(1, plain), Tuple.of(2, special))
                .list()
                .ofMinSize(2)
                .ofMaxSize(4)
                .map(l -> String.join(",", l));
        return Arbitraries.frequencyOf(Tuple.of(4, list), Tuple.of(1, Arbitraries.of("*", "?")));
    }

    private static Arbitrary<String> dowField() {
        Arbitrary<Integer> weekday = Arbitraries.integers().between(0, 6);
        Arbitrary<String> plain = Arbitraries.oneOf(
                weekday.map(String::valueOf),
                Combinators.combine(weekday, weekday).as((a, b) -> Math.min(a, b) + "-" + Math.max(a, b)));
        Arbitrary<String> special = Arbitraries.oneOf(
                Combinators.combine(weekday, Arbitraries.integers().between(1, 5))
                        .as((d, k) -> d + "#" + k),
                weekday.map(d -> d + "L"),
                Arbitraries.just("L"));
        Arbitrary<String> list = Arbitraries.oneOf(plain, special)
                .list()
                .ofMinSize(1)
                .ofMaxSize(3)
                .map(l -> String.join(",", l));
        return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.of("*", "?")), Tuple.of(2, list));
    }

    @Property(tries = 300)
    void dayListsWithSpecialElementsMatchADayByDayMatcher(@ForAll("crons") String cron) {
        List<LocalDate> expected = bruteForce(cron);
        List<LocalDate> got;
        try {
            got = Recurrences.compile(RecurrenceSpec.cron(cron, ZoneOffset.UTC))
                    .preview(Instant.parse("2024-12-31T23:59:59Z"), N)
                    .stream()
                    .map(o -> o.local().toLocalDate())
                    .toList();
        } catch (InvalidRecurrenceException e) {
            assertThat(e.code()).as(cron + ": " + e.getMessage()).isEqualTo("rule_has_no_occurrences");
            assertThat(expected).as(cron).isEmpty();
            return;
        }
        if (expected.size() < N) {
            LocalDate end = START.plusDays(HORIZON_DAYS);
            assertThat(got.stream().filter(d -> d.isBefore(end)).toList())
                    .as(cron)
                    .isEqualTo(expected);
        } else {
            assertThat(got).as(cron).isEqualTo(expected);
        }
    }

    /** The lists that made cron-utils answer wrongly, kept as fixed examples. */
    @Example
    void theListsCronUtilsGotWrong() {
        for (String cron : List.of(
                "0 0 1,31W * ?", "0 0 1,L * ?", "0 0 L,15 * ?", "0 0 15W,L * ?", "0 0 L,LW * ?", "0 0 L-3,1 * ?")) {
            dayListsWithSpecialElementsMatchADayByDayMatcher(cron);
        }
    }

    private static List<LocalDate> bruteForce(String cron) {
        String[] f = cron.split(" ");
        String dom = f[2];
        String month = f[3];
        String dow = f[4];
        boolean either = restricted(dom) && restricted(dow);
        List<LocalDate> out = new ArrayList<>();
        for (LocalDate d = START; out.size() < N && d.isBefore(START.plusDays(HORIZON_DAYS)); d = d.plusDays(1)) {
            if (!plainMatch(month, d.getMonthValue(), 1, 12)) {
                continue;
            }
            boolean domOk = domMatch(dom, d);
            boolean dowOk = dowMatch(dow, d);
            if (either ? domOk || dowOk : domOk && dowOk) {
                out.add(d);
            }
        }
        return out;
    }

    private static boolean restricted(String field) {
        return !field.startsWith("*") && !field.equals("?");
    }

    private static boolean domMatch(String field, LocalDate d) {
        if (field.equals("*") || field.equals("?")) {
            return true;
        }
        YearMonth ym = YearMonth.from(d);
        int last = ym.lengthOfMonth();
        for (String e : field.split(",")) {
            boolean hit;
            if (e.equals("L")) {
                hit = d.getDayOfMonth() == last;
            } else if (e.startsWith("L-")) {
                hit = d.getDayOfMonth() == last - Integer.parseInt(e.substring(2));
            } else if (e.equals("LW")) {
                hit = d.equals(nearestWeekday(ym, last));
            } else if (e.endsWith("W")) {
                int n = Integer.parseInt(e.substring(0, e.length() - 1));
                hit = n <= last && d.equals(nearestWeekday(ym, n));
            } else {
                hit = plainMatch(e, d.getDayOfMonth(), 1, 31);
            }
            if (hit) {
                return true;
            }
        }
        return false;
    }

    /** Quartz: the weekday nearest day n, never leaving the month. */
    private static LocalDate nearestWeekday(YearMonth ym, int n) {
        LocalDate day = ym.atDay(n);
        if (day.getDayOfWeek() == DayOfWeek.SATURDAY) {
            return n == 1 ? day.plusDays(2) : day.minusDays(1);
        }
        if (day.getDayOfWeek() == DayOfWeek.SUNDAY) {
            return n == ym.lengthOfMonth() ? day.minusDays(2) : day.plusDays(1);
        }
        return day;
    }

    private static boolean dowMatch(String field, LocalDate d) {
        if (field.equals("*") || field.equals("?")) {
            return true;
        }
        int weekday = d.getDayOfWeek().getValue() % 7;
        for (String e : field.split(",")) {
            boolean hit;
            if (e.contains("#")) {
                String[] p = e.split("#");
                hit = weekday == Integer.parseInt(p[0]) && (d.getDayOfMonth() - 1) / 7 + 1 == Integer.parseInt(p[1]);
            } else if (e.equals("L")) {
                hit = weekday == 6; // Quartz: L alone is the last day of the week, Saturday
            } else if (e.endsWith("L")) {
                hit = weekday == Integer.parseInt(e.substring(0, e.length() - 1))
                        && d.plusWeeks(1).getMonth() != d.getMonth();
            } else {
                hit = plainMatch(e, weekday, 0, 6);
            }
            if (hit) {
                return true;
            }
        }
        return false;
    }

    /** A plain element or list ({@link CronOracleTest}'s matcher): a value, {@code a-b}, {@code a/s}, {@code *}{@code /s}. */
    private static boolean plainMatch(String field, int value, int min, int max) {
        return CronOracleTest.parse(field, min, max, null)[value];
    }
}
