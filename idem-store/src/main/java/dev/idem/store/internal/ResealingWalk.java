package dev.idem.store.internal;

import dev.idem.store.Resealing;
import dev.idem.store.SecretCipher;
import dev.idem.store.internal.SealedColumns.Column;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The {@link Resealing} walk over the {@link SealedColumns}, in batches of {@value #BATCH} rows. */
final class ResealingWalk implements Resealing {
    /** Rows per transaction. */
    static final int BATCH = 200;

    private final Transactions transactions;
    private final Dialect dialect;
    private final SecretCipher cipher;

    ResealingWalk(Transactions transactions, Dialect dialect, SecretCipher cipher) {
        this.transactions = transactions;
        this.dialect = dialect;
        this.cipher = cipher;
    }

    @Override
    public dev.idem.store.MasterKeys keys() {
        return cipher.keys();
    }

    @Override
    public Outcome sealPlaintext() {
        String plainFilter = "substr(%s, 1, " + SealedColumns.PLAIN.length() + ") = '" + SealedColumns.PLAIN + "'";
        return everyColumn(plainFilter, null, null);
    }

    @Override
    public Outcome rewrap(java.util.function.BiConsumer<String, Long> progress) {
        String primaryPrefix = SecretCipher.PREFIX + cipher.keys().primaryId() + ":";
        return everyColumn("substr(%s, 1, " + primaryPrefix.length() + ") <> ?", primaryPrefix, progress);
    }

    @Override
    public Census census() {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        for (Column c : SealedColumns.ALL) {
            Map<String, Long> counts = new LinkedHashMap<>();
            transactions.read(sql -> sql.query(
                    "SELECT " + c.column() + " AS v FROM " + c.table() + " WHERE " + c.column() + " IS NOT NULL",
                    rs -> {
                        String id = SecretCipher.keyIdOf(rs.getString("v"));
                        counts.merge(id == null ? PLAINTEXT : id, 1L, Long::sum);
                        return null;
                    }));
            out.put(c.toString(), counts);
        }
        return new Census(out);
    }

    private Outcome everyColumn(String filter, String filterArg, java.util.function.BiConsumer<String, Long> progress) {
        long resealed = 0;
        long skipped = 0;
        for (Column c : SealedColumns.ALL) {
            long[] counts = column(c, String.format(filter, c.column()), filterArg, progress);
            resealed += counts[0];
            skipped += counts[1];
        }
        String after = dialect.afterSecretsRewritten();
        if (resealed > 0 && after != null) transactions.autocommit(sql -> sql.query(after, rs -> null));
        return new Outcome(resealed, skipped);
    }

    private record Row(List<String> keys, String rowId, String value) {}

    /** One column, batch by batch in key order; a cursor on the key, so rows a concurrent writer keeps old are passed. */
    private long[] column(
            Column c, String filter, String filterArg, java.util.function.BiConsumer<String, Long> progress) {
        String keyList = String.join(", ", c.keys());
        long[] counts = new long[2];
        List<String> cursor = null;
        while (true) {
            List<String> after = cursor;
            List<Row> batch = transactions.write(sql -> {
                List<Object> args = new ArrayList<>();
                StringBuilder q = new StringBuilder("SELECT " + keyList + ", " + c.column() + " AS v FROM " + c.table()
                        + " WHERE " + c.column() + " IS NOT NULL AND " + filter);
                if (filterArg != null) args.add(filterArg);
                if (after != null) {
                    q.append(" AND (")
                            .append(keyList)
                            .append(") > (")
                            .append(Sql.marks(after.size()))
                            .append(')');
                    args.addAll(after);
                }
                q.append(" ORDER BY ").append(keyList).append(" LIMIT ").append(BATCH);
                List<Row> rows = sql.query(
                        q.toString(),
                        rs -> {
                            List<String> keys = new ArrayList<>(c.keys().size());
                            for (String k : c.keys()) keys.add(rs.getString(k));
                            return new Row(keys, c.rowId(rs), rs.getString("v"));
                        },
                        args.toArray());
                String where = String.join(" = ? AND ", c.keys()) + " = ? AND " + c.column() + " = ?";
                for (Row r : rows) {
                    String next = reseal(c, r);
                    List<Object> u = new ArrayList<>(List.of(next));
                    u.addAll(r.keys());
                    u.add(r.value());
                    int n = sql.update(
                            "UPDATE " + c.table() + " SET " + c.column() + " = ? WHERE " + where, u.toArray());
                    counts[n == 1 ? 0 : 1]++;
                }
                return rows;
            });
            if (batch.isEmpty()) return counts;
            cursor = batch.get(batch.size() - 1).keys();
            if (progress != null) progress.accept(c.toString(), counts[0]);
            if (batch.size() < BATCH) return counts;
        }
    }

    /** Opens with whichever key sealed it (a value no key in the keyset opens fails here, before anything is written). */
    private String reseal(Column c, Row r) {
        String plain = r.value().startsWith(SealedColumns.PLAIN)
                ? r.value().substring(SealedColumns.PLAIN.length())
                : cipher.open(c.table(), r.rowId(), c.column(), r.value());
        return cipher.seal(c.table(), r.rowId(), c.column(), plain);
    }
}
