package dev.idem.client.internal;

import java.util.List;

/** The API's list shape, {@code {"object": "list", "data": [...], "has_more": bool}}. */
public record ListBody<T>(List<T> data, boolean hasMore) {
    public ListBody {
        data = data == null ? List.of() : List.copyOf(data);
    }
}
