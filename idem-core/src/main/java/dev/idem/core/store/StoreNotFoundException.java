package dev.idem.core.store;

/**
 * There is no Idem store where one was expected: no SQLite file, or a database without Idem's schema. Thrown by
 * callers that must not create one (an administrative command run against the wrong place would otherwise make an
 * empty store that no node uses). Not transient.
 */
public final class StoreNotFoundException extends StoreException {
    public StoreNotFoundException(String message) {
        super(message, null, false);
    }
}
