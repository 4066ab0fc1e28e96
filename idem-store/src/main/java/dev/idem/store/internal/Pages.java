package dev.idem.store.internal;

import dev.idem.core.Page;
import java.util.List;

/** Newest-first cursor pages: ids sort by creation time, so "older than the cursor" is {@code id < ?}. */
final class Pages {
    private Pages() {}

    /**
     * One page of {@code select} (a query ending in a WHERE clause, its parameters {@code args}), older than
     * {@code startingAfter} when it is given.
     */
    static <T> Page<T> after(
            Sql sql, String select, List<Object> args, String startingAfter, int limit, Sql.RowMapper<T> mapper) {
        StringBuilder q = new StringBuilder(select);
        List<Object> all = new java.util.ArrayList<>(args);
        if (startingAfter != null) {
            q.append(" AND id < ?");
            all.add(startingAfter);
        }
        return fetch(sql, q, all, limit, mapper);
    }

    static <T> Page<T> fetch(Sql sql, StringBuilder query, List<Object> args, int limit, Sql.RowMapper<T> mapper) {
        if (limit < 1) throw new IllegalArgumentException("limit must be at least 1");
        query.append(" ORDER BY id DESC LIMIT ?");
        args.add(limit + 1);
        List<T> rows = sql.query(query.toString(), mapper, args.toArray());
        boolean more = rows.size() > limit;
        return new Page<>(more ? rows.subList(0, limit) : rows, more);
    }
}
