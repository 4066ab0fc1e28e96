package dev.idem.engine.internal;

/**
 * When a task whose cost grows with the backlog may run again: no sooner than {@code multiple} times its last duration
 * after it began (so it takes at most one part in {@code multiple} of the time of the thread that runs it and of a
 * database backend), nor sooner than {@code floorMillis} after it began. Used by the dispatcher's pass-over claim and
 * by the queue-depth gauge, whose statements both read every row of a backlog. Times are the engine clock's milliseconds; a clock that went back (a stepped system clock)
 * does not hold the next run off for as long as it went back. One thread uses an instance.
 */
final class CostSpacing {
    private final long floorMillis;
    private final int multiple;

    /** The clock's millisecond from which the next may run. */
    private long from = Long.MIN_VALUE;
    /** When the last one began. */
    private long last = Long.MIN_VALUE;

    CostSpacing(long floorMillis, int multiple) {
        if (floorMillis < 0 || multiple < 1)
            throw new IllegalArgumentException(
                    "floorMillis must be >= 0 and multiple >= 1, got " + floorMillis + " and " + multiple);
        this.floorMillis = floorMillis;
        this.multiple = multiple;
    }

    /** Milliseconds from {@code now} until the next may run; 0 when it may run now. */
    long waitMillis(long now) {
        return now >= from || now < last ? 0 : from - now;
    }

    /** Records a run (done or failed) that began at {@code startedAt} and ended at {@code endedAt}. */
    void ran(long startedAt, long endedAt) {
        last = startedAt;
        long took = Math.max(0, endedAt - startedAt);
        from = startedAt + Math.max(floorMillis, multiple * took);
    }
}
