package dev.idem.core.recurrence;

import java.time.DayOfWeek;
import java.util.List;

/**
 * A parsed RRULE exactly as written: absent parts are null, nothing is defaulted from DTSTART
 * yet (that happens in {@link RuleExpander}).
 */
record Rule(
        Frequency freq,
        int interval,
        Integer count,
        Until until,
        DayOfWeek wkst,
        int[] bySecond,
        int[] byMinute,
        int[] byHour,
        List<WeekdayNum> byDay,
        int[] byMonthDay,
        int[] byYearDay,
        int[] byWeekNo,
        int[] byMonth,
        int[] bySetPos) {}
