package dev.idem.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.receiver.DedupWindow;
import dev.idem.receiver.Inbox;
import dev.idem.receiver.Outcome;
import dev.idem.receiver.RedisInbox;
import dev.idem.receiver.Work;
import java.time.Duration;

/** The inboxes {@code idem listen --inbox} opens besides memory: Redis, and JDBC through a pool. */
final class ListenInboxes {
    private ListenInboxes() {}

    static Inbox redis(String url, Duration lease) {
        return Redis.open(url, lease);
    }

    /** Keeps Jedis out of this class's signatures, so the command loads without it. */
    private static final class Redis {
        static Inbox open(String url, Duration lease) {
            return RedisInbox.connect(url, "idem:listen:", lease, DedupWindow.defaults());
        }
    }

    /** The inbox's connections: HikariCP (in the jar for the store anyway); 16 covers the HTTP server's 16 threads. */
    static HikariDataSource pool(String url) {
        HikariConfig c = new HikariConfig();
        c.setPoolName("idem-listen-inbox");
        c.setJdbcUrl(url);
        c.setMaximumPoolSize(16);
        c.setMinimumIdle(1);
        c.setInitializationFailTimeout(10_000);
        return new HikariDataSource(c);
    }

    /** A JDBC inbox and the pool it draws from, closed together. */
    record PooledInbox(Inbox inner, HikariDataSource pool) implements Inbox, AutoCloseable {
        @Override
        public Duration defaultLease() {
            return inner.defaultLease();
        }

        @Override
        public dev.idem.receiver.ClaimAttempt claim(String key, Duration lease) {
            return inner.claim(key, lease);
        }

        @Override
        public Outcome execute(String key, Duration lease, Work work) throws Exception {
            return inner.execute(key, lease, work);
        }

        @Override
        public int prune(java.time.Instant cutoff, int batchSize) {
            return inner.prune(cutoff, batchSize);
        }

        @Override
        public void close() throws Exception {
            try {
                if (inner instanceof AutoCloseable c) c.close();
            } finally {
                pool.close();
            }
        }
    }
}
