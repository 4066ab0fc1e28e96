package dev.idem.store.internal;

import dev.idem.core.store.StoreException;
import dev.idem.store.MasterKeyException;
import dev.idem.store.MasterKeys;
import dev.idem.store.Resealing;
import java.util.List;
import java.util.Map;

/**
 * What a store checks before it serves: that its keyset holds every key id that seals a secret in it (else nothing is
 * written, and the node refuses to start naming the id instead of failing deliveries later), then that no secret is left
 * in plain text (sealing what the migration to sealed secrets marked, and refusing anything else).
 */
public final class SecretsAtRest {
    private SecretsAtRest() {}

    public static void check(JdbcStore store, MasterKeys keys) {
        Resealing resealing = store.resealing();
        Resealing.Census census = resealing.census();
        List<String> missing = keys.missing(census.keyIds());
        if (!missing.isEmpty())
            throw new MasterKeyException("the master keyset (" + String.join(", ", keys.ids()) + ") lacks key id "
                    + String.join(", ", missing) + ", which seals secrets in this store: give every node the keyset"
                    + " that holds it");
        if (!hasPlaintext(census)) return;
        resealing.sealPlaintext();
        Resealing.Census after = resealing.census();
        if (hasPlaintext(after))
            throw new StoreException(
                    "secrets left in plain text after sealing: " + plaintextColumns(after)
                            + " (written by a node of a version before sealed secrets? stop it, then start again)",
                    null,
                    false);
    }

    private static boolean hasPlaintext(Resealing.Census census) {
        return census.byColumn().values().stream().anyMatch(m -> m.containsKey(Resealing.PLAINTEXT));
    }

    private static String plaintextColumns(Resealing.Census census) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Map<String, Long>> e : census.byColumn().entrySet()) {
            Long n = e.getValue().get(Resealing.PLAINTEXT);
            if (n != null)
                b.append(b.length() == 0 ? "" : ", ")
                        .append(e.getKey())
                        .append(" ")
                        .append(n);
        }
        return b.toString();
    }
}
