package dev.idem.receiver;

import java.nio.file.Path;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

class SqliteInboxTest extends JdbcInboxContract {
    @TempDir
    static Path dir;

    static String url;
    static TestDatabases.Pool pool;

    @BeforeAll
    static void open() {
        // WAL and a generous busy timeout: what a multi-threaded SQLite receiver should run with (see README)
        url = "jdbc:sqlite:" + dir.resolve("inbox.db") + "?journal_mode=WAL&busy_timeout=30000&synchronous=NORMAL";
        pool = new TestDatabases.Pool(url, 8);
        resetTables(pool);
    }

    @AfterAll
    static void close() {
        pool.close();
    }

    @Override
    protected DataSource dataSource() {
        return pool;
    }

    @Override
    protected String jdbcUrl() {
        return url;
    }
}
