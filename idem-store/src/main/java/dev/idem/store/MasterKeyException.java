package dev.idem.store;

/**
 * A master key or keyset that cannot be used: malformed, readable by others, or lacking a key id the store uses. A node
 * refuses to start on it (its message is one line, never showing a key); nothing has been written.
 */
public final class MasterKeyException extends RuntimeException {
    public MasterKeyException(String message) {
        super(message);
    }
}
