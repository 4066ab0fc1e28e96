package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** An aligned text table for people: columns padded to their widest cell, two spaces apart, {@code -} for nothing. */
final class Table {
    /** Cells of a list are cut to this many characters (a whole value is one {@code get} away). */
    static final int MAX_CELL = 60;

    private final List<String[]> rows = new ArrayList<>();
    private final boolean cut;

    private Table(boolean cut) {
        this.cut = cut;
    }

    /** A list: a header row, then one row per item, long cells cut. */
    static Table of(String... headers) {
        Table t = new Table(true);
        t.rows.add(headers);
        return t;
    }

    /** One object: a row per top-level field, name then value, in the API's order; nested values as compact JSON. */
    static Table fields(JsonNode object, String... except) {
        Table t = new Table(false);
        List<String> skip = List.of(except);
        object.fields().forEachRemaining(e -> {
            if (!skip.contains(e.getKey())) t.row(e.getKey(), e.getValue());
        });
        return t;
    }

    /** Cells: text, numbers, JSON values (text as is, null as {@code -}, objects and arrays as compact JSON). */
    Table row(Object... cells) {
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) row[i] = cell(cells[i]);
        rows.add(row);
        return this;
    }

    boolean isEmpty() {
        return rows.size() <= (cut ? 1 : 0);
    }

    private String cell(Object value) {
        String s;
        if (value == null) s = "-";
        else if (value instanceof JsonNode n)
            s = n.isMissingNode() || n.isNull() ? "-" : n.isValueNode() ? n.asText() : n.toString();
        else s = value.toString();
        s = s.replaceAll("[\\r\\n\\t]+", " ");
        return cut && s.length() > MAX_CELL ? s.substring(0, MAX_CELL - 1) + "…" : s;
    }

    @Override
    public String toString() {
        int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        int[] width = new int[columns];
        for (String[] r : rows)
            for (int i = 0; i < r.length; i++) width[i] = Math.max(width[i], r[i].codePointCount(0, r[i].length()));
        StringBuilder out = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                line.append(r[i]);
                if (i < r.length - 1) line.append(" ".repeat(width[i] - r[i].codePointCount(0, r[i].length()) + 2));
            }
            out.append(line.toString().stripTrailing()).append(System.lineSeparator());
        }
        return out.toString();
    }
}
