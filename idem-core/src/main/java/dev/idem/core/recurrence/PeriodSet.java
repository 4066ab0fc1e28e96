package dev.idem.core.recurrence;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One period's occurrences as matching dates × sorted times, read lazily in order. A rule may
 * list every hour, minute and second, so a YEARLY period can hold 366 × 86,400 times: they are
 * indexed, never materialised, and BYSETPOS picks by index.
 */
final class PeriodSet {

    private final List<LocalDate> dates = new ArrayList<>();
    private LocalTime[] times;
    private long[] picked;
    private long position;

    void reset(LocalTime[] times) {
        dates.clear();
        this.times = times;
        picked = null;
        position = 0;
    }

    void add(LocalDate date) {
        dates.add(date);
    }

    boolean isEmpty() {
        return dates.isEmpty();
    }

    /** Keeps only the BYSETPOS positions (1-based, negative from the end) that exist. */
    void select(int[] setPos) {
        long size = size();
        picked = Arrays.stream(setPos)
                .mapToLong(p -> p > 0 ? p - 1L : size + p)
                .filter(i -> i >= 0 && i < size)
                .distinct()
                .sorted()
                .toArray();
    }

    /** Moves past the times before {@code from}. */
    void skipBefore(LocalDateTime from) {
        if (picked != null) {
            while (position < picked.length && at(picked[(int) position]).isBefore(from)) {
                position++;
            }
            return;
        }
        int day = 0;
        while (day < dates.size() && dates.get(day).isBefore(from.toLocalDate())) {
            day++;
        }
        position = (long) day * times.length;
        if (day < dates.size() && dates.get(day).equals(from.toLocalDate())) {
            int t = Arrays.binarySearch(times, from.toLocalTime());
            position += t >= 0 ? t : -t - 1;
        }
    }

    /** The next time of the period, or null when it has none left. */
    LocalDateTime next() {
        long limit = picked != null ? picked.length : size();
        if (position >= limit) {
            return null;
        }
        long flat = picked != null ? picked[(int) position] : position;
        position++;
        return at(flat);
    }

    private long size() {
        return (long) dates.size() * times.length;
    }

    private LocalDateTime at(long flat) {
        return dates.get((int) (flat / times.length)).atTime(times[(int) (flat % times.length)]);
    }
}
