package dev.idem.receiver.spring;

import dev.idem.receiver.servlet.ConnectionBinder;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Binds the inbox transaction to Spring's transaction synchronisation while the handler runs, so
 * {@code JdbcTemplate} and {@code @Transactional(REQUIRED)} code on the same DataSource join the claim's
 * transaction instead of opening their own. A participant that marks the transaction rollback-only makes the
 * whole delivery roll back, claim included.
 */
final class SpringConnectionBinder implements ConnectionBinder {
    private final DataSource dataSource;

    SpringConnectionBinder(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public AutoCloseable bind(Connection tx) {
        if (TransactionSynchronizationManager.hasResource(dataSource)) {
            throw new IllegalStateException("a Spring transaction is already bound to this thread's DataSource;"
                    + " the webhook filter must run outside any transaction");
        }
        InboxConnectionHolder holder = new InboxConnectionHolder(tx);
        TransactionSynchronizationManager.bindResource(dataSource, holder);
        return () -> {
            TransactionSynchronizationManager.unbindResource(dataSource);
            if (holder.isRollbackOnly()) {
                throw new IllegalStateException(
                        "the handler's transaction was marked rollback-only; rolling the delivery back");
            }
        };
    }

    /** A holder that tells Spring a transaction is active, so REQUIRED participates instead of committing it. */
    private static final class InboxConnectionHolder extends ConnectionHolder {
        InboxConnectionHolder(Connection c) {
            super(c);
            setTransactionActive(true);
            setSynchronizedWithTransaction(true);
        }
    }
}
