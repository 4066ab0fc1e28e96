package dev.idem.core.store;

import dev.idem.core.DeliveryStatus;
import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Message;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/** Messages, scoped by tenant; each stored once. */
public interface MessageRepository {
    /**
     * Inserts the message unless one with its id exists (a scheduled occurrence's id is derived, so a second node or a
     * retry finds the first): then nothing is written and the answer is false.
     */
    boolean insert(Message message);

    /** The message with this id in this tenant; empty for another tenant's. */
    Optional<Message> find(Tenant tenant, String id);

    /**
     * Newest first; null filters match anything; {@code startingAfter} is an id, as for schedules. Every filter is
     * applied in the store, so a page holds {@code limit} matching messages whenever that many are left.
     *
     * @param since inclusive, on the creation time
     * @param until exclusive, on the creation time
     * @param deliveryStatuses only messages with at least one delivery in one of these states; empty: any
     */
    Page<Message> list(
            Tenant tenant,
            String eventType,
            String applicationId,
            Instant since,
            Instant until,
            Set<DeliveryStatus> deliveryStatuses,
            int limit,
            String startingAfter);
}
