package dev.idem.core.recurrence;

/** RFC 5545 FREQ values, finest first, so {@code compareTo} orders them by period length. */
enum Frequency {
    SECONDLY,
    MINUTELY,
    HOURLY,
    DAILY,
    WEEKLY,
    MONTHLY,
    YEARLY;

    boolean coarserThan(Frequency other) {
        return compareTo(other) > 0;
    }
}
