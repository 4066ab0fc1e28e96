package dev.idem.store.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Every column that holds a sealed secret ({@link dev.idem.store.SecretCipher}). Start-up seals what a migration left as
 * {@code plain:} text here, refuses a keyset that lacks a key id in use here, and {@code keys master rewrap} and
 * {@code status} walk these columns: a new secret column gets its line here, or it is none of that.
 */
final class SealedColumns {
    /** The text a migration puts before a value it found in plain text, for start-up to seal. */
    static final String PLAIN = "plain:";

    /**
     * One secret column.
     *
     * @param keys the primary key columns; the row id of the associated data joins their values with {@code /}
     */
    record Column(String table, List<String> keys, String column) {
        String rowId(ResultSet rs) throws SQLException {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < keys.size(); i++) b.append(i == 0 ? "" : "/").append(rs.getString(keys.get(i)));
            return b.toString();
        }

        @Override
        public String toString() {
            return table + "." + column;
        }
    }

    static final Column SIGNING_CURRENT =
            new Column("signing_secrets", List.of("project_id", "mode"), "current_secret");
    static final Column SIGNING_RETIRED =
            new Column("signing_secrets", List.of("project_id", "mode"), "previous_secrets");
    static final Column SOURCE_CURRENT = new Column("sources", List.of("id"), "secret");
    static final Column SOURCE_RETIRED = new Column("sources", List.of("id"), "previous_secrets");

    static final Column ENDPOINT_CURRENT = new Column("endpoints", List.of("id"), "secret");
    static final Column ENDPOINT_RETIRED = new Column("endpoints", List.of("id"), "previous_secrets");

    static final List<Column> ALL = List.of(
            SIGNING_CURRENT, SIGNING_RETIRED, SOURCE_CURRENT, SOURCE_RETIRED, ENDPOINT_CURRENT, ENDPOINT_RETIRED);

    /** The row id of {@code signing_secrets}. */
    static String signingRowId(dev.idem.core.Tenant t) {
        return t.projectId() + "/" + Rows.mode(t.mode());
    }

    private SealedColumns() {}
}
