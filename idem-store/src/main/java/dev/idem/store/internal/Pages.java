package dev.idem.store.internal;

import dev.idem.core.Page;
import java.util.List;

/** Newest-first cursor pages: ids sort by creation time, so "older than the cursor" is {@code id < ?}. */
final class Pages {
    private Pages() {}

    static <T> Page<T> fetch(Sql sql, StringBuilder query, List<Object> args, int limit, Sql.RowMapper<T> mapper) {
        if (limit < 1) throw new IllegalArgumentException("limit must be at least 1");
        query.append(" ORDER BY id DESC LIMIT ?");
        args.add(limit + 1);
        List<T> rows = sql.query(query.toString(), mapper, args.toArray());
        boolean more = rows.size() > limit;
        return new Page<>(more ? rows.subList(0, limit) : rows, more);
    }
}
