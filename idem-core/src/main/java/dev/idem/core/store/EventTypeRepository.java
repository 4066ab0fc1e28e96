package dev.idem.core.store;

import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.EventType;
import java.util.Optional;

/** Event types, scoped by tenant and named uniquely in it. */
public interface EventTypeRepository {
    /** Inserts the event type; false (and nothing written) when its tenant already has one of that name. */
    boolean insert(EventType eventType);

    Optional<EventType> find(Tenant tenant, String name);

    /** By name, in name order (byte order); {@code startingAfter} is a name. */
    Page<EventType> list(Tenant tenant, int limit, String startingAfter);

    /** Writes every field of the event type (matched by tenant and name); false when no such row exists. */
    boolean update(EventType eventType);

    /** Removes it; false when there was none. Messages keep their event type's name. */
    boolean delete(Tenant tenant, String name);
}
