package dev.idem.store.internal;

import dev.idem.core.store.StoreException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The inserts of a group commit's works, held back and written as multi-row statements: a group of 128 ingested
 * events costs one statement per table (dedup reservations, schedules, deliveries) instead of one per event and table.
 * It also keeps the reads the group's works share ({@link Sql#queryPerGroup}).
 *
 * <p>Rows are written in the order their statements were first held (so a reservation before its schedule, a
 * schedule before its deliveries), and before any other statement runs on the transaction ({@link Sql} flushes them
 * first), so a work that reads after writing reads what it wrote.
 *
 * <p><b>Each row keeps its outcome.</b> A dedup reservation of a key that an earlier work of the group reserved
 * answers "taken" at once ({@link #reserve}); the caller then reads the holder, which flushes the held rows first. Any
 * other held dedup reservation answers "reserved" at once and is checked when
 * written ({@code ON CONFLICT DO NOTHING RETURNING}): a reservation that another transaction or an earlier work of the
 * group already holds marks its work {@link #lost}, and {@link GroupCommit} then rolls the group back, commits the
 * others again as a group and runs each lost work alone, where its reservation is read as usual (a dedup hit with
 * the first holder's answer). A held insert whose rows were not all written (a conflict that {@code ON CONFLICT DO
 * NOTHING} skipped), or a statement that fails, fails the group, whose works then run alone: each gets what it
 * would have got without grouping.
 */
final class GroupedInserts {
    /** What a held statement's written rows must show. */
    enum Check {
        /** Every row written, or the group fails. */
        ALL,
        /** The rows that came back (their first {@code keyWidth} values) were reserved; the others' works lost. */
        RESERVED
    }

    private record Statement(String head, String rowSql, String tail, Check check, int keyWidth) {}

    private record Row(int owner, Object[] values) {}

    private final Map<Statement, List<Row>> held = new LinkedHashMap<>();
    private final BitSet lost = new BitSet();
    /** The keys of every reservation held in this group, flushed or not. */
    private final java.util.Set<String> reserved = new java.util.HashSet<>();
    /** The values of the reservations held and not written yet, by key: {@link #unwritten} lets a work complete one. */
    private final Map<String, Object[]> unwritten = new HashMap<>();
    /** Reads that every work of the group may share ({@link Sql#queryPerGroup}), by statement and arguments. */
    private final Map<String, List<?>> reads = new HashMap<>();

    private int owner;
    private int rows;
    private boolean writing;

    /** The work whose rows are held from now on (its index in the group). */
    void owner(int index) {
        owner = index;
    }

    /**
     * Holds one row of {@code head + rowSql + tail} until the next {@link #flush}.
     *
     * @param keyWidth for {@link Check#RESERVED}: the number of leading values that {@code tail}'s {@code RETURNING}
     *     gives back, in order
     */
    void hold(String head, String rowSql, String tail, Check check, int keyWidth, Object[] values) {
        held.computeIfAbsent(new Statement(head, rowSql, tail, check, keyWidth), k -> new ArrayList<>())
                .add(new Row(owner, values));
        rows++;
    }

    /**
     * Holds a dedup reservation ({@link Check#RESERVED}), unless an earlier work of this group reserved the same key.
     *
     * @return false when the key was reserved earlier in this group (nothing held), else true
     */
    boolean reserve(String head, String rowSql, String tail, int keyWidth, Object[] values) {
        String key = key(values, keyWidth);
        if (!reserved.add(key)) return false;
        hold(head, rowSql, tail, Check.RESERVED, keyWidth, values);
        unwritten.put(key, values);
        return true;
    }

    /**
     * The values of the reservation of {@code keyValues} held by {@link #reserve} and not written yet, which the caller
     * may still change (they are read when written); null when there is none or it was written already.
     */
    Object[] unwritten(Object... keyValues) {
        return unwritten.get(key(keyValues, keyValues.length));
    }

    /** What {@link #remember} kept for {@code key} in this group, or null. */
    @SuppressWarnings("unchecked")
    <T> List<T> recalled(String key) {
        return (List<T>) reads.get(key);
    }

    /** Keeps a read's rows for the group's later works ({@link Sql#queryPerGroup}). */
    void remember(String key, List<?> rows) {
        reads.put(key, rows);
    }

    /** Drops every remembered read: a statement that is not a held insert may have changed what they read. */
    void forgetReads() {
        if (!writing) reads.clear();
    }

    /** Rows held since the last flush. */
    int rows() {
        return rows;
    }

    /** Writes what is held, one multi-row statement per statement held (chunked at the parameter limit). */
    void flush(Sql sql) {
        if (held.isEmpty()) return;
        List<Map.Entry<Statement, List<Row>>> todo = new ArrayList<>(held.entrySet());
        // detached first: the statements below run through the same Sql, which flushes before each one
        held.clear();
        unwritten.clear();
        rows = 0;
        writing = true;
        try {
            write(sql, todo);
        } finally {
            writing = false;
        }
    }

    private void write(Sql sql, List<Map.Entry<Statement, List<Row>>> todo) {
        for (Map.Entry<Statement, List<Row>> e : todo) {
            Statement s = e.getKey();
            List<Row> list = e.getValue();
            List<Object[]> values = new ArrayList<>(list.size());
            for (Row r : list) values.add(r.values());
            if (s.check() == Check.ALL) {
                int written = sql.multiRowUpdate(s.head(), s.rowSql(), values, s.tail());
                if (written != list.size())
                    throw new StoreException(
                            "a grouped insert wrote " + written + " of " + list.size() + " rows [" + s.head() + "]",
                            null,
                            false);
            } else {
                int width = s.keyWidth();
                List<String> back = sql.multiRowQuery(s.head(), s.rowSql(), values, s.tail(), rs -> {
                    StringBuilder k = new StringBuilder();
                    for (int c = 1; c <= width; c++) k.append(rs.getString(c)).append('\n');
                    return k.toString();
                });
                Map<String, Integer> reserved = new HashMap<>();
                for (String k : back) reserved.merge(k, 1, Integer::sum);
                for (Row r : list) {
                    String k = key(r.values(), width);
                    Integer n = reserved.get(k);
                    // two works of the group with one key: the first row took it, the second lost it
                    if (n == null || n == 0) lost.set(r.owner());
                    else reserved.put(k, n - 1);
                }
            }
        }
    }

    private static String key(Object[] values, int width) {
        StringBuilder k = new StringBuilder();
        for (int c = 0; c < width; c++) {
            Object v = values[c];
            k.append(v instanceof java.time.Instant t ? Long.toString(t.toEpochMilli()) : String.valueOf(v))
                    .append('\n');
        }
        return k.toString();
    }

    /** The works (indices in the group) whose held reservation another row held first. */
    BitSet lost() {
        return (BitSet) lost.clone();
    }
}
