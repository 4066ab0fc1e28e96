package dev.idem.store;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * How to reach the store's database. Immutable and validated once, here.
 *
 * @param jdbcUrl {@code jdbc:sqlite:<file>} or {@code jdbc:postgresql://host[:port]/db[?user=…&password=…]}
 * @param user database user, or null (PostgreSQL may take it from the URL; SQLite has none)
 * @param password database password, or null
 * @param poolSize connections in the pool, 1 to 200
 * @param databaseClock whether claims and leases use the database's clock ({@code clock_timestamp()} on
 *     PostgreSQL) instead of the {@link java.time.Clock} given to {@link JdbcStores#open}; tests that move
 *     time turn it off. SQLite has one process on one machine, so it always uses the given clock.
 * @param masterKeys the keys that seal stored secrets ({@link SecretCipher}); null means: for SQLite, the keyset file
 *     {@link MasterKeyFile#DEFAULT_NAME} beside the database file (made on first open), for PostgreSQL, none, and
 *     {@link JdbcStores#open} refuses
 */
public record StoreConfig(
        String jdbcUrl, String user, String password, int poolSize, boolean databaseClock, MasterKeys masterKeys) {
    /** The file name of the embedded store inside its data directory. */
    public static final String SQLITE_FILE = "idem.db";

    static final String SQLITE_PREFIX = "jdbc:sqlite:";
    static final String POSTGRES_PREFIX = "jdbc:postgresql:";

    public StoreConfig {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (poolSize < 1 || poolSize > 200)
            throw new IllegalArgumentException("pool size must be between 1 and 200, not " + poolSize);
        dialectOf(jdbcUrl);
        if (isSqlite(jdbcUrl)) databaseClock = false;
    }

    /** Without master keys (see {@link #masterKeys}). */
    public StoreConfig(String jdbcUrl, String user, String password, int poolSize, boolean databaseClock) {
        this(jdbcUrl, user, password, poolSize, databaseClock, null);
    }

    /** The embedded store: {@code jdbc:sqlite:<dataDir>/idem.db}, a small pool, the given clock. */
    public static StoreConfig sqlite(Path dataDir) {
        Objects.requireNonNull(dataDir, "dataDir");
        return new StoreConfig(SQLITE_PREFIX + dataDir.resolve(SQLITE_FILE), null, null, 4, false);
    }

    /**
     * A store at {@code url}, the dialect chosen from its scheme. PostgreSQL defaults to a pool of 10
     * and the database clock; SQLite to a pool of 4.
     *
     * @throws IllegalArgumentException for a scheme other than {@code jdbc:sqlite:} or {@code jdbc:postgresql:}
     */
    public static StoreConfig of(String url, String user, String password) {
        boolean sqlite = isSqlite(Objects.requireNonNull(url, "url"));
        return new StoreConfig(url, user, password, sqlite ? 4 : 10, !sqlite);
    }

    public StoreConfig withPoolSize(int size) {
        return new StoreConfig(jdbcUrl, user, password, size, databaseClock, masterKeys);
    }

    public StoreConfig withDatabaseClock(boolean on) {
        return new StoreConfig(jdbcUrl, user, password, poolSize, on, masterKeys);
    }

    /** With these master keys (null: see {@link #masterKeys}). */
    public StoreConfig withMasterKeys(MasterKeys keys) {
        return new StoreConfig(jdbcUrl, user, password, poolSize, databaseClock, keys);
    }

    /** {@code sqlite} or {@code postgresql}, as {@link dev.idem.core.store.Store#dialect()} reports it. */
    public String dialect() {
        return dialectOf(jdbcUrl);
    }

    private static boolean isSqlite(String url) {
        return url.toLowerCase(Locale.ROOT).startsWith(SQLITE_PREFIX);
    }

    private static String dialectOf(String url) {
        String u = url.toLowerCase(Locale.ROOT);
        if (u.startsWith(SQLITE_PREFIX)) {
            if (u.length() == SQLITE_PREFIX.length())
                throw new IllegalArgumentException("database url names no SQLite file: " + url);
            return "sqlite";
        }
        if (u.startsWith(POSTGRES_PREFIX)) return "postgresql";
        throw new IllegalArgumentException("unsupported database url '" + redact(url)
                + "': use jdbc:postgresql://host[:port]/database or jdbc:sqlite:/path/to/idem.db");
    }

    /**
     * A database or Redis URL fit for messages and logs: the value of any {@code password=} parameter and the password
     * of any {@code user:password@} part are replaced by {@code ***}. The one redaction every module uses, so a form
     * one of them misses cannot leak through another's log line.
     */
    public static String redact(String url) {
        if (url == null) return null;
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***").replaceAll("//([^:/@]+):[^@/]+@", "//$1:***@");
    }

    /** Never shows the password. */
    @Override
    public String toString() {
        return "StoreConfig[jdbcUrl=" + redact(jdbcUrl) + ", user=" + user + ", password="
                + (password == null ? "null" : "***") + ", poolSize=" + poolSize + ", databaseClock=" + databaseClock
                + ", masterKeys=" + masterKeys + "]";
    }
}
