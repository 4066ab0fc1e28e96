package dev.idem.engine.internal;

import dev.idem.core.Delivery;
import org.slf4j.MDC;

/**
 * The ids a log line is about, as MDC entries: {@code idem serve --log-format json} writes them as the fields
 * {@code delivery_id} and {@code schedule_id} (the API's names), so an operator filters a delivery's story by field
 * instead of by text. Set around the code that handles one delivery on one thread; text logs do not show them (the
 * messages name the ids already).
 */
final class LogIds {
    public static final String DELIVERY_ID = "delivery_id";
    public static final String SCHEDULE_ID = "schedule_id";

    private LogIds() {}

    /** Tags this thread's log lines with the delivery's and its schedule's ids until {@link #clear()}. */
    public static void set(Delivery delivery) {
        MDC.put(DELIVERY_ID, delivery.id());
        MDC.put(SCHEDULE_ID, delivery.scheduleId());
    }

    public static void clear() {
        MDC.remove(DELIVERY_ID);
        MDC.remove(SCHEDULE_ID);
    }

    /** Tags this thread's log lines with one delivery id until closed (where only the id is at hand). */
    public static MDC.MDCCloseable delivery(String deliveryId) {
        return MDC.putCloseable(DELIVERY_ID, deliveryId);
    }

    /** Tags this thread's log lines with one schedule id until closed. */
    public static MDC.MDCCloseable schedule(String scheduleId) {
        return MDC.putCloseable(SCHEDULE_ID, scheduleId);
    }
}
