package dev.idem.store.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class SqlTest {
    @Test
    void racesLostConnectionsAndRestartsAreTransient() {
        assertThat(Sql.isTransient(new SQLException("deadlock detected", "40P01")))
                .isTrue();
        assertThat(Sql.isTransient(new SQLException("could not serialize access", "40001")))
                .isTrue();
        assertThat(Sql.isTransient(new SQLException("connection refused", "08001")))
                .isTrue();
        assertThat(Sql.isTransient(new SQLException("terminating connection due to administrator command", "57P01")))
                .isTrue();
        assertThat(Sql.isTransient(new SQLTransientConnectionException("pool timed out")))
                .isTrue();
        assertThat(Sql.isTransient(new SQLException("[SQLITE_BUSY] The database file is locked")))
                .isTrue();
    }

    @Test
    void constraintAndSyntaxErrorsAreNot() {
        assertThat(Sql.isTransient(new SQLException("duplicate key value", "23505")))
                .isFalse();
        assertThat(Sql.isTransient(new SQLException("syntax error", "42601"))).isFalse();
    }

    @Test
    void failuresNameTheStatementAndKeepTheCause() {
        SQLException cause = new SQLException("boom", "40P01");
        var e = Sql.failure("SELECT   1\\n FROM t", cause);
        assertThat(e.getCause()).isSameAs(cause);
        assertThat(e.transientFailure()).isTrue();
        assertThat(e.getMessage()).contains("boom");
    }
}
