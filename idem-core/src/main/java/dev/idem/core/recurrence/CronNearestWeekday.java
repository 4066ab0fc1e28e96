package dev.idem.core.recurrence;

import com.cronutils.model.time.ExecutionTime;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZonedDateTime;
import java.util.Optional;

/**
 * A cron day-of-month {@code nW}, the weekday nearest day {@code n} of the same month, matched here
 * rather than by cron-utils: cron-utils builds {@code LocalDate.of(year, month, n)} and so throws
 * {@code DateTimeException} in any month without day {@code n} (31W in February or April, 29W in
 * a common year's February), and keeps a Sunday that is the month's last day. Here a month
 * without day {@code n} has no {@code nW}, as a month without day 31 has no {@code 31}, and the
 * nearest weekday never leaves the month (Quartz's rule): Saturday the 1st moves to Monday the
 * 3rd, a Sunday that ends the month to Friday.
 */
final class CronNearestWeekday {

    /**
     * The Gregorian calendar repeats its dates and weekdays every 400 years, so a match not found
     * within 400 years is never found: that ends the search for a combination that never happens
     * ({@code 31W 2}: one search a year) instead of walking cron-utils' unbounded years.
     */
    private static final int CYCLE_YEARS = 400;

    private final int day;
    private final ExecutionTime anyDay;

    /** @param anyDay the same cron with day-of-month {@code *}: the times and the other fields */
    CronNearestWeekday(int day, ExecutionTime anyDay) {
        this.day = day;
        this.anyDay = anyDay;
    }

    /** The first match strictly after {@code after}: one cron-utils search per day it skips to, at most two a month. */
    Optional<ZonedDateTime> nextExecution(ZonedDateTime after) {
        ZonedDateTime giveUp = after.plusYears(CYCLE_YEARS);
        ZonedDateTime t = after;
        while (true) {
            Optional<ZonedDateTime> candidate = anyDay.nextExecution(t);
            if (candidate.isEmpty() || candidate.get().isAfter(giveUp)) {
                return Optional.empty();
            }
            ZonedDateTime c = candidate.get();
            LocalDate date = c.toLocalDate();
            int target = in(YearMonth.from(date));
            if (date.getDayOfMonth() == target) {
                return candidate;
            }
            LocalDate skipTo = date.getDayOfMonth() < target
                    ? date.withDayOfMonth(target)
                    : date.withDayOfMonth(1).plusMonths(1);
            t = skipTo.atStartOfDay(c.getZone()).minusSeconds(1);
        }
    }

    /** The day of {@code month} that {@code nW} names, or 0 when the month has no day {@code n}. */
    int in(YearMonth month) {
        if (day > month.lengthOfMonth()) {
            return 0;
        }
        DayOfWeek dow = month.atDay(day).getDayOfWeek();
        if (dow == DayOfWeek.SATURDAY) {
            return day == 1 ? 3 : day - 1;
        }
        if (dow == DayOfWeek.SUNDAY) {
            return day == month.lengthOfMonth() ? day - 2 : day + 1;
        }
        return day;
    }
}
