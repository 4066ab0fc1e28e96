package dev.idem.store.testing;

import dev.idem.store.MasterKeys;
import dev.idem.store.StoreConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of a test's own, which the test may stop and start again: {@code initdb} into a temporary
 * directory and {@code pg_ctl start} on a free loopback port. Tests of a database outage use it, never the shared
 * server on 5432, which other tests (and other people) are using.
 *
 * <p>The binaries are found under {@code /usr/lib/postgresql/<version>/bin} (the newest), or in {@code
 * IDEM_TEST_PG_BIN}. PostgreSQL refuses to run as root, so under root the server runs as the {@code postgres} user
 * ({@code runuser}). The server is fast and unsafe on purpose ({@code fsync} off, small shared memory): it lives for one
 * test. {@link #close()} stops it and deletes its directory.
 *
 * <pre>{@code
 * try (PrivatePostgres pg = PrivatePostgres.create()) {
 *     Store store = pg.open(Clock.systemUTC());
 *     pg.stop();   // the database is gone: connections refused
 *     pg.start();  // back, same port, same data
 * }
 * }</pre>
 */
public final class PrivatePostgres implements TestDatabase {
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);

    private final Path bin;
    private final Path dir;
    private final Path data;
    private final int port;
    private final StoreConfig config;
    private final boolean asPostgresUser;
    private boolean running;
    private Thread hook;

    private PrivatePostgres(Path bin, Path dir, int port, boolean asPostgresUser) {
        this.bin = bin;
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
        this.asPostgresUser = asPostgresUser;
        // a keyset of its own, as a node has: every store opened on this database seals with it
        this.config = StoreConfig.of("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", null)
                .withDatabaseClock(false)
                .withPoolSize(8)
                .withMasterKeys(MasterKeys.generate(new SecureRandom(), Instant.now()));
    }

    /** Makes a new cluster in a temporary directory and starts it on a free port. */
    public static PrivatePostgres create() {
        Path bin = binaries();
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir;
        try {
            dir = Files.createTempDirectory("idem-private-pg-");
            if (root) {
                UserPrincipal postgres =
                        dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
                Files.setOwner(dir, postgres);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot make a directory for a private PostgreSQL: " + e.getMessage(), e);
        }
        PrivatePostgres pg = new PrivatePostgres(bin, dir, freePort(), root);
        try {
            pg.run(
                    "initdb",
                    "-D",
                    pg.data.toString(),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-sync",
                    "--no-instructions");
            pg.start();
            // a JVM that ends without closing it (a killed test run) still stops its server
            pg.hook = new Thread(pg::close, "private-postgres-" + pg.port);
            Runtime.getRuntime().addShutdownHook(pg.hook);
            return pg;
        } catch (RuntimeException e) {
            pg.close();
            throw e;
        }
    }

    @Override
    public StoreConfig config() {
        return config;
    }

    /** The port it listens on (127.0.0.1), the same after a restart. */
    public int port() {
        return port;
    }

    /** Stops the server at once ({@code pg_ctl stop -m immediate}): open connections break, new ones are refused. */
    public synchronized void stop() {
        if (!running) return;
        run("pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "stop");
        running = false;
    }

    /** Starts it again after {@link #stop()}: same port, same data (what was committed before the stop). */
    public synchronized void start() {
        if (running) return;
        String options = "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -F"
                + " -c shared_buffers=16MB -c max_connections=60";
        run("pg_ctl", "-D", data.toString(), "-l", dir.resolve("server.log").toString(), "-w", "-o", options, "start");
        running = true;
    }

    /** Whether it is running (started and not stopped since). */
    public synchronized boolean running() {
        return running;
    }

    @Override
    public void wipe() {
        Properties p = new Properties();
        p.setProperty("user", "postgres");
        try (Connection c = DriverManager.getConnection(config.jdbcUrl(), p);
                Statement s = c.createStatement()) {
            for (String t : TestStores.TABLES) s.executeUpdate("DELETE FROM " + t);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot wipe the private PostgreSQL on port " + port, e);
        }
    }

    /** Stops the server and deletes its directory. */
    @Override
    public synchronized void close() {
        try {
            if (running) stop();
        } catch (RuntimeException e) {
            // the directory goes anyway; a server left running would hold files in it, so say so
            System.err.println("private PostgreSQL on port " + port + " did not stop: " + e.getMessage());
        } finally {
            deleteTree(dir);
            if (hook != null && Thread.currentThread() != hook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs anyway and finds it stopped
                }
            }
        }
    }

    private void run(String program, String... args) {
        List<String> command = new ArrayList<>();
        if (asPostgresUser) command.addAll(List.of("runuser", "-u", "postgres", "--"));
        command.add(bin.resolve(program).toString());
        command.addAll(List.of(args));
        Path log = dir.resolve(program + ".out");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            if (!p.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        program + " did not finish within " + COMMAND_TIMEOUT + ": " + tail(log));
            }
            if (p.exitValue() != 0)
                throw new IllegalStateException(
                        String.join(" ", command) + " failed (exit " + p.exitValue() + "): " + tail(log));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + program, e);
        }
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log);
            return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    /** {@code IDEM_TEST_PG_BIN}, else the newest {@code /usr/lib/postgresql/<version>/bin} with initdb and pg_ctl. */
    static Path binaries() {
        String configured = System.getenv("IDEM_TEST_PG_BIN");
        if (configured != null && !configured.isBlank()) return Path.of(configured);
        Path root = Path.of("/usr/lib/postgresql");
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                    .max(Comparator.comparingInt(b -> version(b.getParent())))
                    .orElseThrow(() -> new IllegalStateException("no initdb and pg_ctl under " + root
                            + "/<version>/bin: install the PostgreSQL server package or set IDEM_TEST_PG_BIN"));
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot list " + root + " for PostgreSQL's binaries (set IDEM_TEST_PG_BIN): " + e.getMessage(), e);
        }
    }

    private static int version(Path dir) {
        try {
            return Integer.parseInt(dir.getFileName().toString().replaceAll("\\..*", ""));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port for a private PostgreSQL: " + e.getMessage(), e);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a file the server still writes: the temporary directory keeps it
                }
            });
        } catch (IOException e) {
            // already gone
        }
    }
}
