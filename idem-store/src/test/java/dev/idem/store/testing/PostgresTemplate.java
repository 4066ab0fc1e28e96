package dev.idem.store.testing;

import dev.idem.store.JdbcStores;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;

/**
 * The migrated schema each PostgreSQL test database starts as: one database per set of migrations, named {@code
 * idem_template_<digest of the migration files>_<epoch seconds>}, migrated once by whichever test JVM needs it first
 * (an advisory lock keeps the others waiting meanwhile) and marked as a template. A test database is then a copy
 * ({@code CREATE DATABASE … TEMPLATE}), which costs a fraction of running every migration in it again, for each of the
 * hundreds of databases a build creates. A change to any migration changes the digest, hence the template.
 */
final class PostgresTemplate {
    static final String PREFIX = "idem_template_";
    private static final String MIGRATIONS = "db/migration/postgresql";
    /** This JVM's template, once found or made. */
    private static String name;

    private PostgresTemplate() {}

    /** Creates {@code database} as a copy of the template (made first when there is none yet). */
    static void cloneInto(String database) {
        String template = template();
        try {
            exec("CREATE DATABASE " + database + " TEMPLATE " + template);
        } catch (SQLException gone) {
            // dropped meanwhile (by a sweep of another run, or by hand): make it again, once
            forget(template);
            try {
                exec("CREATE DATABASE " + database + " TEMPLATE " + template());
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create test database " + database + " from " + template, e);
            }
        }
    }

    private static synchronized void forget(String template) {
        if (template.equals(name)) name = null;
    }

    private static synchronized String template() {
        if (name != null) return name;
        String digest = digest();
        String prefix = PREFIX + digest + "_";
        long lock = Long.parseLong(digest.substring(0, 15), 16);
        try (Connection c = DriverManager.getConnection(TestStores.adminUrl(), TestStores.props());
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_lock(" + lock + ")");
            try {
                String found = null;
                List<String> unfinished = new ArrayList<>();
                try (ResultSet rs =
                        s.executeQuery("SELECT datname, datistemplate FROM pg_database WHERE starts_with(datname, '"
                                + prefix + "')")) {
                    while (rs.next()) {
                        if (rs.getBoolean(2)) found = rs.getString(1);
                        else unfinished.add(rs.getString(1));
                    }
                }
                if (found == null) {
                    // a JVM that died while migrating left its database unmarked: start over
                    for (String half : unfinished) s.execute("DROP DATABASE IF EXISTS " + half + " WITH (FORCE)");
                    String made = prefix + Instant.now().getEpochSecond();
                    s.execute("CREATE DATABASE " + made);
                    migrate(made);
                    s.execute("ALTER DATABASE " + made + " WITH IS_TEMPLATE true");
                    found = made;
                }
                dropStale(s, digest);
                name = found;
                return found;
            } finally {
                s.execute("SELECT pg_advisory_unlock(" + lock + ")");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "PostgreSQL for the store tests is not usable at " + TestStores.adminUrl() + " as "
                            + TestStores.user() + " (" + e.getMessage()
                            + "). Start it (see DEVELOPERS.md) or point IDEM_TEST_PG_URL at one; "
                            + "store tests are never skipped.",
                    e);
        }
    }

    /** The migrations as a store runs them ({@link JdbcStores#open}: same class loader, location and strictness). */
    private static void migrate(String database) {
        Flyway.configure(JdbcStores.class.getClassLoader())
                .dataSource(TestStores.urlOf(database), TestStores.user(), TestStores.password())
                .locations("classpath:" + MIGRATIONS)
                .failOnMissingLocations(true)
                .load()
                .migrate();
    }

    /**
     * Templates of other migration sets made more than {@link TestStores#ABANDONED_AFTER} ago: a branch that still
     * uses one makes it again.
     */
    private static void dropStale(Statement s, String digest) throws SQLException {
        long cutoff = Instant.now().minus(TestStores.ABANDONED_AFTER).getEpochSecond();
        List<String> stale = new ArrayList<>();
        try (ResultSet rs =
                s.executeQuery("SELECT datname FROM pg_database WHERE starts_with(datname, '" + PREFIX + "')")) {
            while (rs.next()) {
                String[] parts = rs.getString(1).substring(PREFIX.length()).split("_");
                if (parts.length == 2
                        && !parts[0].equals(digest)
                        && parts[1].matches("\\d{9,11}")
                        && Long.parseLong(parts[1]) < cutoff) stale.add(rs.getString(1));
            }
        }
        for (String old : stale) {
            s.execute("ALTER DATABASE " + old + " WITH IS_TEMPLATE false");
            s.execute("DROP DATABASE IF EXISTS " + old + " WITH (FORCE)");
        }
    }

    private static void exec(String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestStores.adminUrl(), TestStores.props());
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    /** SHA-256 of the migration files' names and contents (every copy on the class path), 16 hex digits. */
    static String digest() {
        Map<String, byte[]> files = new TreeMap<>();
        try {
            Enumeration<URL> roots = JdbcStores.class.getClassLoader().getResources(MIGRATIONS);
            while (roots.hasMoreElements()) read(roots.nextElement(), files);
            if (files.isEmpty()) throw new IllegalStateException("no migrations on the class path at " + MIGRATIONS);
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                sha.update(f.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(f.getValue());
            }
            return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException | URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void read(URL root, Map<String, byte[]> files) throws IOException, URISyntaxException {
        if (root.getProtocol().equals("file")) {
            try (Stream<Path> list = Files.list(Path.of(root.toURI()))) {
                for (Path f : list.filter(Files::isRegularFile).toList())
                    files.put(f.getFileName().toString(), Files.readAllBytes(f));
            }
        } else if (root.getProtocol().equals("jar")) {
            JarURLConnection connection = (JarURLConnection) root.openConnection();
            connection.setUseCaches(false);
            try (JarFile jar = connection.getJarFile()) {
                Enumeration<JarEntry> entries = jar.entries();
                while (entries.hasMoreElements()) {
                    JarEntry e = entries.nextElement();
                    if (e.isDirectory() || !e.getName().startsWith(MIGRATIONS + "/")) continue;
                    try (InputStream in = jar.getInputStream(e)) {
                        files.put(e.getName().substring(MIGRATIONS.length() + 1), in.readAllBytes());
                    }
                }
            }
        } else {
            throw new IllegalStateException("cannot list migrations at " + root);
        }
    }
}
