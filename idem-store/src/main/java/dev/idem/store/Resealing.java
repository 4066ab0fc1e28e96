package dev.idem.store;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Walks the sealed secret columns in small batches: seals what a migration left in plain text, re-seals under the
 * primary key what older keys sealed ({@code keys master rewrap}), and counts what each key sealed. Each batch is one
 * short transaction whose updates are compare-and-set on the value read, so a rotation that writes a row meanwhile is
 * kept (its value is sealed by its writer's primary) and nothing is ever locked for longer than a batch: no table lock,
 * no pause in deliveries. It keeps no state: run again after a crash, it finds what is left.
 */
public interface Resealing {
    /** Counts, per column and per key id ({@link #PLAINTEXT} for values not sealed yet). */
    record Census(Map<String, Map<String, Long>> byColumn) {
        /** The key ids sealing at least one value. */
        public Set<String> keyIds() {
            Set<String> ids = new LinkedHashSet<>();
            byColumn.values()
                    .forEach(m -> m.keySet().forEach(id -> {
                        if (!id.equals(PLAINTEXT)) ids.add(id);
                    }));
            return ids;
        }

        /** Values sealed by a key other than {@code primaryId}, or not sealed. */
        public long notUnder(String primaryId) {
            return byColumn.values().stream()
                    .flatMap(m -> m.entrySet().stream())
                    .filter(e -> !e.getKey().equals(primaryId))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
        }
    }

    /** What one pass changed. */
    record Outcome(long resealed, long skippedConcurrentWrites) {}

    /** The census's name for values still in plain text. */
    String PLAINTEXT = "plaintext";

    /** The keyset this store seals and opens with. */
    MasterKeys keys();

    /** Seals every value a migration left as {@code plain:} text. */
    Outcome sealPlaintext();

    /**
     * Re-seals under the primary key every value an older key sealed ({@code keys master rewrap}); {@code progress}
     * hears each column's count as it goes.
     */
    Outcome rewrap(BiConsumer<String, Long> progress);

    /** What each key seals, per column. */
    Census census();
}
