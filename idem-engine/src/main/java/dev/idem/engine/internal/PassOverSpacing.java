package dev.idem.engine.internal;

/**
 * When the dispatcher's pass-over claim ({@link dev.idem.core.store.DeliveryQueue#claimDuePassingOver}) may run again:
 * at most once a {@link #SPACING_MS}, and no sooner than {@link #COST_SPACING} times the last one's duration after it
 * began, so it takes at most 2% of the time of the thread that runs it and of a database backend. It reads every due
 * row of the full destinations with its schedule (most of a second at 200,000 rows), so rows of another destination
 * that fell due in the middle of such a backlog wait up to a second behind a small backlog and about a minute behind
 * 280,000 rows. Times are the engine clock's milliseconds; a clock that went back (a stepped system clock) does not
 * hold the next one off for as long as it went back. One thread uses an instance.
 */
final class PassOverSpacing {
    static final long SPACING_MS = 1_000;
    static final int COST_SPACING = 50;

    /** The clock's millisecond from which the next may run. */
    private long from = Long.MIN_VALUE;
    /** When the last one began. */
    private long last = Long.MIN_VALUE;

    /** Milliseconds from {@code now} until the next may run; 0 when it may run now. */
    long waitMillis(long now) {
        return now >= from || now < last ? 0 : from - now;
    }

    /** Records a pass-over (run or failed) that began at {@code startedAt} and ended at {@code endedAt}. */
    void ran(long startedAt, long endedAt) {
        last = startedAt;
        long took = Math.max(0, endedAt - startedAt);
        from = startedAt + Math.max(SPACING_MS, COST_SPACING * took);
    }
}
