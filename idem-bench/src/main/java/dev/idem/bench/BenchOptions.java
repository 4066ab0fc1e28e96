package dev.idem.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one benchmark run does, from the command line ({@code --name value} pairs; {@code --help} lists them).
 *
 * @param jdbcBase {@code jdbc:postgresql://host:port/} without a database name; the run creates its own databases
 * @param dbPrefix prefix of the databases the run drops and recreates ({@code <prefix>} for Idem,
 *     {@code <prefix>_dbs} for db-scheduler)
 * @param warmup one-shot deliveries due at once, run first on each contender and not reported as a result
 * @param bursts sizes of the measured "all due at once" runs
 * @param steadyRate deliveries per second in the lag run
 * @param steadySeconds how long the lag run spans
 * @param contenders of {@code idem}, {@code db-scheduler} (tasks send with java.net.http) and
 *     {@code db-scheduler+apache} (tasks send with Apache HttpClient 5, as Idem does)
 * @param wireRequests requests of the no-database baseline (each HTTP client to the receiver); 0 skips it
 * @param insertThreads threads that write a run's schedules before it is due
 * @param idemBatch the Idem engine's claim batch size ({@code EngineConfig.batchSize})
 * @param idemMaxInFlight the Idem engine's deliveries in flight ({@code EngineConfig.maxInFlight}, {@code --max-in-flight})
 * @param idemPool the Idem store's connection pool size
 * @param receiverThreads the JDK receiver's worker threads
 * @param jdkReceiver use the JDK's HTTP server as the receiver instead of the minimal socket server
 * @param slowDue deliveries due at once to one receiver answering each after {@code slowMillis}; 0 skips the phase
 * @param slowMillis that receiver's answer time
 * @param hangingDue deliveries due at once to a receiver that never answers, beside a healthy one receiving
 *     {@code healthyRate} per second for {@code steadySeconds}; 0 skips the phase
 * @param healthyRate the healthy destination's deliveries per second in that phase
 * @param nodes nodes each contender runs on its one database, all in this JVM: Idem engines, each with its own
 *     store and pool, or db-scheduler schedulers, each with its own pool (writing stays one writer)
 * @param sameHostDue as {@code hangingDue}, but the hanging path and the healthy one are two paths of one host and port
 *     ({@code /hang/b} and {@code /ok/a}); 0 skips the phase
 */
public record BenchOptions(
        String jdbcBase,
        String user,
        String password,
        String dbPrefix,
        int warmup,
        List<Integer> bursts,
        int steadyRate,
        int steadySeconds,
        List<String> contenders,
        int wireRequests,
        int insertThreads,
        int idemBatch,
        int idemMaxInFlight,
        int idemPool,
        int receiverThreads,
        boolean jdkReceiver,
        int slowDue,
        int slowMillis,
        int hangingDue,
        int healthyRate,
        int nodes,
        int sameHostDue) {

    /** The list components are copied, so a caller's list changed later does not change the options. */
    public BenchOptions {
        bursts = List.copyOf(bursts);
        contenders = List.copyOf(contenders);
    }

    /** The full benchmark: warm-up 30,000, bursts of 10,000 and 100,000, 30 s at 1,000/s, all three contenders. */
    public static BenchOptions defaults() {
        return new BenchOptions(
                "jdbc:postgresql://127.0.0.1:5432/",
                "postgres",
                null,
                "idem_bench",
                30_000,
                List.of(10_000, 100_000),
                1_000,
                30,
                ALL,
                20_000,
                4,
                500,
                10_000,
                10,
                16,
                false,
                5_000,
                250,
                1_000,
                20,
                1,
                0);
    }

    /** A run of a few seconds that only checks the harness works (the smoke test uses it). */
    public static BenchOptions smoke(String dbPrefix) {
        // the full benchmark's knobs, every size cut down; the Idem engine knobs stay as they are
        Builder b = new Builder(defaults());
        b.dbPrefix = dbPrefix;
        b.warmup = 200;
        b.bursts = List.of(200);
        b.steadyRate = 100;
        b.steadySeconds = 2;
        b.wireRequests = 200;
        b.insertThreads = 2;
        b.receiverThreads = 8;
        b.slowDue = 200;
        b.hangingDue = 50;
        return b.build();
    }

    public boolean runs(String contender) {
        return contenders.contains(contender);
    }

    /** Parses {@code --name value} pairs over {@link #defaults()}; {@code --quick} starts from {@link #smoke}. */
    public static BenchOptions parse(String[] args) {
        Builder b = new Builder(defaults());
        for (String a : args) if (a.equals("--quick")) b = new Builder(smoke(b.dbPrefix));
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--quick")) continue;
            if (name.equals("--help") || name.equals("-h")) throw new IllegalArgumentException(usage());
            if (i + 1 >= args.length)
                throw new IllegalArgumentException("option " + name + " needs a value\n" + usage());
            String v = args[++i];
            // each value is checked here, as it is read, so its error names the option and the text given
            switch (name) {
                case "--jdbc" -> b.jdbcBase = v;
                case "--user" -> b.user = v;
                case "--password" -> b.password = v;
                case "--db" -> b.dbPrefix = v;
                case "--warmup" -> b.warmup = count(name, v, 0);
                case "--bursts" -> b.bursts = counts(name, v);
                case "--rate" -> b.steadyRate = count(name, v, 1);
                case "--seconds" -> b.steadySeconds = count(name, v, 0);
                case "--only" -> b.contenders = contenders(v);
                case "--wire" -> b.wireRequests = count(name, v, 0);
                case "--insert-threads" -> b.insertThreads = count(name, v, 1);
                case "--idem-batch" -> b.idemBatch = count(name, v, 1);
                case "--idem-max-in-flight" -> b.idemMaxInFlight = count(name, v, 1);
                case "--idem-pool" -> b.idemPool = count(name, v, 2);
                case "--receiver-threads" -> b.receiverThreads = count(name, v, 1);
                case "--receiver" -> b.jdkReceiver = receiver(v);
                case "--slow" -> b.slowDue = count(name, v, 0);
                case "--slow-ms" -> b.slowMillis = count(name, v, 1);
                case "--hanging" -> b.hangingDue = count(name, v, 0);
                case "--healthy-rate" -> b.healthyRate = count(name, v, 1);
                case "--nodes" -> b.nodes = count(name, v, 1);
                case "--same-host" -> b.sameHostDue = count(name, v, 0);
                default -> throw new IllegalArgumentException("unknown option " + name + "\n" + usage());
            }
        }
        return b.build();
    }

    /**
     * The options being read: one field set per option, the record made once at the end (a record has no setters,
     * and copying all 21 components for each option repeated the whole list in every case).
     */
    private static final class Builder {
        String jdbcBase;
        String user;
        String password;
        String dbPrefix;
        int warmup;
        List<Integer> bursts;
        int steadyRate;
        int steadySeconds;
        List<String> contenders;
        int wireRequests;
        int insertThreads;
        int idemBatch;
        int idemMaxInFlight;
        int idemPool;
        int receiverThreads;
        boolean jdkReceiver;
        int slowDue;
        int slowMillis;
        int hangingDue;
        int healthyRate;
        int nodes;
        int sameHostDue;

        Builder(BenchOptions from) {
            jdbcBase = from.jdbcBase;
            user = from.user;
            password = from.password;
            dbPrefix = from.dbPrefix;
            warmup = from.warmup;
            bursts = from.bursts;
            steadyRate = from.steadyRate;
            steadySeconds = from.steadySeconds;
            contenders = from.contenders;
            wireRequests = from.wireRequests;
            insertThreads = from.insertThreads;
            idemBatch = from.idemBatch;
            idemMaxInFlight = from.idemMaxInFlight;
            idemPool = from.idemPool;
            receiverThreads = from.receiverThreads;
            jdkReceiver = from.jdkReceiver;
            slowDue = from.slowDue;
            slowMillis = from.slowMillis;
            hangingDue = from.hangingDue;
            healthyRate = from.healthyRate;
            nodes = from.nodes;
            sameHostDue = from.sameHostDue;
        }

        BenchOptions build() {
            return new BenchOptions(
                    jdbcBase,
                    user,
                    password,
                    dbPrefix,
                    warmup,
                    bursts,
                    steadyRate,
                    steadySeconds,
                    contenders,
                    wireRequests,
                    insertThreads,
                    idemBatch,
                    idemMaxInFlight,
                    idemPool,
                    receiverThreads,
                    jdkReceiver,
                    slowDue,
                    slowMillis,
                    hangingDue,
                    healthyRate,
                    nodes,
                    sameHostDue);
        }
    }

    static String usage() {
        return """
                options (defaults in brackets):
                  --quick                 a few-second check of the harness (200 deliveries each)
                  --only all|both|none|LIST  [all] = idem,db-scheduler,db-scheduler+apache; both = the first two;
                                          none runs only the wire baseline; db-scheduler sends with java.net.http,
                                          db-scheduler+apache with Apache HttpClient 5 as Idem does
                  --warmup N              deliveries due at once before measuring, per contender [30000]
                  --bursts N,N            measured due-at-once runs [10000,100000]
                  --rate N --seconds S    steady lag run [1000 for 30]
                  --wire N                no-database baseline requests, 0 to skip [20000]
                  --jdbc URL              PostgreSQL server, no database [jdbc:postgresql://127.0.0.1:5432/]
                  --user U --password P   [postgres, none]
                  --db PREFIX             databases dropped and recreated: PREFIX and PREFIX_dbs [idem_bench]
                  --idem-batch N --idem-max-in-flight N --idem-pool N   Idem engine knobs [500, 10000, 10]
                  --receiver socket|jdk   minimal blocking server, or com.sun.net.httpserver [socket]
                  --insert-threads N --receiver-threads N         harness knobs [4, 16 (jdk receiver only)]
                  --slow N --slow-ms M    N due at once to one receiver answering each after M ms, 0 skips [5000, 250]
                  --hanging N --healthy-rate R   N due at once to a receiver that never answers, beside a healthy
                                          one receiving R/s for --seconds; 0 skips [1000, 20]
                  --same-host N           as --hanging, the two being paths of one host and port (/hang/b hangs,
                                          /ok/a answers at once); 0 skips [0]
                  --nodes N               nodes per contender on its one database, all in this JVM: N Idem
                                          engines (a store and pool each), N db-scheduler schedulers (a pool
                                          each); one writer, completions counted across the nodes [1]""";
    }

    private static int count(String name, String v, int min) {
        try {
            int n = Integer.parseInt(v.replace("_", "").replace(",", ""));
            if (n < min) throw new IllegalArgumentException(name + " must be at least " + min + ", got " + v);
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " takes a whole number, got '" + v + "'");
        }
    }

    private static List<Integer> counts(String name, String v) {
        List<Integer> out = new ArrayList<>();
        for (String part : v.split(",")) if (!part.isBlank()) out.add(count(name, part.trim(), 1));
        return List.copyOf(out);
    }

    private static boolean receiver(String v) {
        return switch (v) {
            case "jdk" -> true;
            case "socket" -> false;
            default -> throw new IllegalArgumentException("--receiver takes socket or jdk, got '" + v + "'");
        };
    }

    static final List<String> ALL = List.of("idem", "db-scheduler", "db-scheduler+apache");

    private static List<String> contenders(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "all" -> ALL;
            case "both" -> List.of("idem", "db-scheduler");
            case "none" -> List.of();
            default -> {
                List<String> out = new ArrayList<>();
                for (String part : v.toLowerCase(Locale.ROOT).split(",")) {
                    if (!ALL.contains(part.trim()))
                        throw new IllegalArgumentException(
                                "--only takes all, both, none or a comma list of " + ALL + ", got '" + v + "'");
                    out.add(part.trim());
                }
                yield List.copyOf(out);
            }
        };
    }
}
