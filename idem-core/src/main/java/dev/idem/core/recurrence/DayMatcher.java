package dev.idem.core.recurrence;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.util.List;

/**
 * Decides whether a date satisfies a rule's day-level parts (BYMONTH, BYWEEKNO, BYYEARDAY,
 * BYMONTHDAY, BYDAY). Every part is a filter on a date, which gives RFC 5545's "expand" and
 * "limit" semantics at once because {@link RuleExpander} offers every date of the period.
 * That is also why the parts lib-recur gets wrong (BYWEEKNO without BYDAY, YEARLY with
 * BYMONTHDAY but no BYMONTH, BYMONTH limiting BYYEARDAY, week 53) need no special case here.
 */
final class DayMatcher {

    private final boolean[] months;
    private final int[] weekNos;
    private final int[] yearDays;
    private final int[] monthDays;
    private final List<WeekdayNum> byDay;
    private final boolean ordinalInMonth;
    private final DayOfWeek wkst;

    DayMatcher(
            int[] months,
            int[] weekNos,
            int[] yearDays,
            int[] monthDays,
            List<WeekdayNum> byDay,
            boolean ordinalInMonth,
            DayOfWeek wkst) {
        this.months = months == null ? null : mask(months, 13);
        this.weekNos = weekNos;
        this.yearDays = yearDays;
        this.monthDays = monthDays;
        this.byDay = byDay;
        this.ordinalInMonth = ordinalInMonth;
        this.wkst = wkst;
    }

    boolean matches(LocalDate d) {
        return (months == null || months[d.getMonthValue()])
                && (monthDays == null || signedMatch(monthDays, d.getDayOfMonth(), d.lengthOfMonth()))
                && (byDay == null || weekdayMatch(d))
                && (yearDays == null || signedMatch(yearDays, d.getDayOfYear(), d.lengthOfYear()))
                && (weekNos == null || weekNoMatch(d));
    }

    /** Whether any date of this month can match, so a YEARLY period can skip the others. */
    boolean monthAllowed(int month) {
        return months == null || months[month];
    }

    private static boolean signedMatch(int[] wanted, int position, int length) {
        int fromEnd = position - length - 1;
        for (int w : wanted) {
            if (w == position || w == fromEnd) {
                return true;
            }
        }
        return false;
    }

    private boolean weekdayMatch(LocalDate d) {
        DayOfWeek dow = d.getDayOfWeek();
        for (WeekdayNum w : byDay) {
            if (w.day() != dow) {
                continue;
            }
            if (w.ordinal() == 0) {
                return true;
            }
            int pos = ordinalInMonth ? d.getDayOfMonth() : d.getDayOfYear();
            int len = ordinalInMonth ? d.lengthOfMonth() : d.lengthOfYear();
            if (w.ordinal() == (pos - 1) / 7 + 1 || w.ordinal() == -((len - pos) / 7 + 1)) {
                return true;
            }
        }
        return false;
    }

    private boolean weekNoMatch(LocalDate d) {
        LocalDate weekStart = d.minusDays(Math.floorMod(d.getDayOfWeek().getValue() - wkst.getValue(), 7));
        // a week belongs to the year holding its fourth day (RFC 5545 / ISO 8601, with WKST as first day)
        int weekYear = weekStart.plusDays(3).getYear();
        long first = weekOneStart(weekYear).toEpochDay();
        int weekNo = (int) ((weekStart.toEpochDay() - first) / 7) + 1;
        int weeksInYear = (int) ((weekOneStart(weekYear + 1).toEpochDay() - first) / 7);
        return signedMatch(weekNos, weekNo, weeksInYear);
    }

    private LocalDate weekOneStart(int year) {
        LocalDate jan4 = LocalDate.of(year, 1, 4);
        return jan4.minusDays(Math.floorMod(jan4.getDayOfWeek().getValue() - wkst.getValue(), 7));
    }

    private static boolean[] mask(int[] values, int size) {
        boolean[] m = new boolean[size];
        for (int v : values) {
            m[v] = true;
        }
        return m;
    }
}
