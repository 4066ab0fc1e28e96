package dev.idem.receiver;

/**
 * An inbox that can claim a key in the same database transaction as the handler's writes, so both commit or roll
 * back together ({@link JdbcInbox}). {@link Receiver} and the Servlet filter run handlers this way by default
 * when the inbox offers it, and claim → work → mark otherwise.
 */
public interface TransactionalInbox extends Inbox {

    /**
     * Runs {@code handler} once per key, inside the transaction that claims the key: the handler's writes on
     * {@code tx} and the claim commit together, or roll back together when the handler throws (then no claim is
     * left and the next delivery does the work). Duplicates, including concurrent ones, return DUPLICATE without
     * calling the handler, with the first call's result. A key held by an unexpired {@link #claim claim → work →
     * mark} claim returns IN_PROGRESS; an expired one is taken over.
     *
     * @throws Exception what the handler threw (after rolling back)
     * @throws InboxException when the database fails before or after the handler
     */
    Outcome process(String key, TransactionalHandler handler) throws Exception;
}
