package dev.idem.receiver;

import java.sql.Connection;

/**
 * The work to do once per key, inside the transaction that claimed the key. Use {@code tx} for every write
 * that must happen exactly once; do not commit, roll back or close it: the inbox does, together with the claim.
 */
@FunctionalInterface
public interface TransactionalHandler {
    /** @return a result to keep for duplicates (e.g. a response body), or null */
    String handle(Connection tx) throws Exception;
}
