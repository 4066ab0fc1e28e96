package dev.idem.receiver;

import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class MariaDbInboxTest extends JdbcInboxContract {
    static TestDatabases.Pool pool;

    @BeforeAll
    static void open() {
        pool = new TestDatabases.Pool(TestDatabases.mariadbUrl(), 16);
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
        return TestDatabases.MARIADB_URL;
    }
}
