/**
 * The JDBC store: {@code dev.idem.store} opens a PostgreSQL or SQLite store ({@code JdbcStores}, {@code StoreConfig})
 * and holds the master keys that seal secrets at rest ({@code Resealing} walks them). {@code dev.idem.store.internal}
 * (SQL, dialects, the re-sealing walk) is not exported.
 */
module dev.idem.store {
    requires transitive dev.idem.core;
    requires transitive java.sql;
    requires com.fasterxml.jackson.databind;
    requires com.zaxxer.hikari;
    // Flyway's jar names no module; this is the name the module system derives from its file name
    requires flyway.core;
    // LISTEN/NOTIFY wake-ups read PostgreSQL's notifications through its driver's own interface
    requires org.postgresql.jdbc;
    requires org.slf4j;

    exports dev.idem.store;

    // Flyway reads the migrations through a class loader, which finds a named module's resources only in packages
    // opened to everyone
    opens db.migration.postgresql;
    opens db.migration.sqlite;
}
