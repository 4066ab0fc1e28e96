package dev.idem.core;

import java.util.List;

/** One page of a cursor-paginated list, newest first. */
public record Page<T>(List<T> data, boolean hasMore) {
    public Page {
        data = List.copyOf(data);
    }
}
