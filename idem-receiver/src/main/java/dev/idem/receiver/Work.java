package dev.idem.receiver;

/** The work to do once per key, outside any inbox transaction (claim → work → mark). */
@FunctionalInterface
public interface Work {
    /** @return a result to keep for duplicates (e.g. a response body), or null */
    String run() throws Exception;
}
