package dev.idem.core.recurrence;

import java.time.DayOfWeek;

/** One BYDAY entry: {@code ordinal} 0 means every such weekday, otherwise the nth (negative: from the end). */
record WeekdayNum(int ordinal, DayOfWeek day) {}
