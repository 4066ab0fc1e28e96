package dev.idem.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the CPU went during a phase, from {@code /proc}: this JVM (contender and receiver together), the
 * PostgreSQL server's processes, and the whole machine (which includes whatever else is running). Zeros where
 * {@code /proc} is absent.
 *
 * <p>Once this JVM has created a database ({@link #countBackendsOf}), PostgreSQL's figure is the server's own
 * processes (checkpointer, WAL writer, …) and the backends serving this JVM's databases only: on a machine shared with
 * other benchmarks, other databases' backends would otherwise be counted as the contender's.
 */
record CpuUse(
        long wallNanos,
        long jvmNanos,
        java.util.Map<Long, Long> postgresTicks,
        long busyTicks,
        long totalTicks,
        long threadsStarted,
        long jitTicks) {
    private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

    static CpuUse sample() {
        long jvm = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        java.util.Map<Long, Long> pg = new java.util.HashMap<>();
        long busy = 0;
        long total = 0;
        try {
            String[] cpu =
                    Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            for (int i = 1; i < cpu.length && i <= 8; i++) total += Long.parseLong(cpu[i]);
            busy = total - Long.parseLong(cpu[4]) - Long.parseLong(cpu[5]);
            try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
                for (Path p : procs) {
                    long ticks = postgresTicks(p);
                    if (ticks >= 0) pg.put(Long.parseLong(p.getFileName().toString()), ticks);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or a process vanished mid-read: report what we have
        }
        return new CpuUse(
                System.nanoTime(),
                jvm,
                pg,
                busy,
                total,
                ManagementFactory.getThreadMXBean().getTotalStartedThreadCount(),
                compilerTicks());
    }

    /**
     * CPU ticks of this JVM's JIT compiler threads (C1 and C2), from {@code /proc/self/task}: after a warm-up the JIT
     * may still be compiling the contender's hot code during a phase, and on two cores that is CPU the contender does
     * not get (measured 2026-11-26: 180 µs per delivery of a 10,000 burst after a 30,000 warm-up). Compiler threads the
     * JVM retired meanwhile take their ticks with them, so this is a lower bound.
     */
    private static long compilerTicks() {
        long ticks = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    if (command(stat).contains("CompilerThre")) ticks += ticks(stat);
                } catch (IOException | RuntimeException e) {
                    // the thread ended between listing and reading
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return ticks;
    }

    private static final java.util.Set<String> DATABASES = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** A client backend's process title: {@code postgres: <cluster>: <user> <database> <host(port)|[local]> …}. */
    private static final java.util.regex.Pattern BACKEND =
            java.util.regex.Pattern.compile("^postgres: \\S+: \\S+ (\\S+) (\\S*\\(\\d+\\)|\\[local\\])");

    /** Counts, from now on, PostgreSQL backends of {@code database}, and no longer those of databases not named so. */
    static void countBackendsOf(String database) {
        DATABASES.add(database);
    }

    private static long postgresTicks(Path proc) {
        try {
            String stat = Files.readString(proc.resolve("stat"));
            if (!command(stat).equals("postgres")) return -1;
            if (!DATABASES.isEmpty()) {
                String title = Files.readString(proc.resolve("cmdline")).replace('\0', ' ');
                java.util.regex.Matcher m = BACKEND.matcher(title);
                if (m.find() && !DATABASES.contains(m.group(1))) return -1;
            }
            return ticks(stat);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The command name of a {@code /proc/…/stat} line (between its parentheses), or "" if it has none. */
    private static String command(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        return open < 0 || close < open ? "" : stat.substring(open + 1, close);
    }

    /** User and system CPU ticks of a {@code /proc/…/stat} line. */
    private static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
    }

    /** Cores used on average between {@code this} and {@code later}. */
    Span until(CpuUse later) {
        double wall = (later.wallNanos - wallNanos) / 1e9;
        if (wall <= 0) return new Span(0, 0, 0, 0, 0, 0);
        double jvm = (later.jvmNanos - jvmNanos) / 1e9 / wall;
        long pgTicks = 0; // processes alive at both samples (a backend that ended took its count with it)
        for (var e : later.postgresTicks.entrySet()) {
            Long before = postgresTicks.get(e.getKey());
            if (before != null) pgTicks += e.getValue() - before;
        }
        double pg = pgTicks / TICKS_PER_SECOND / wall;
        long dt = later.totalTicks - totalTicks;
        double machine = dt <= 0
                ? 0
                : (double) (later.busyTicks - busyTicks)
                        / dt
                        * Runtime.getRuntime().availableProcessors();
        double jit = (later.jitTicks - jitTicks) / TICKS_PER_SECOND / wall;
        return new Span(wall, jvm, pg, machine, later.threadsStarted - threadsStarted, jit);
    }

    /**
     * Average cores busy over {@code seconds}: this JVM (contender and receiver), PostgreSQL's processes, the machine;
     * and how many threads this JVM started meanwhile; {@code jitCores} is the part of {@code jvmCores} its JIT compiler
     * threads used.
     */
    record Span(
            double seconds,
            double jvmCores,
            double postgresCores,
            double machineCores,
            long threadsStarted,
            double jitCores) {
        /** CPU microseconds per delivery, this JVM and PostgreSQL together, for {@code n} deliveries. */
        double microsPerDelivery(int n) {
            return (jvmCores + postgresCores) * seconds * 1e6 / n;
        }

        String describe(int n) {
            return String.format(
                    "cores used: JVM %.2f, PostgreSQL %.2f, whole machine %.2f of %d; CPU per delivery: "
                            + "JVM %.0f µs + PostgreSQL %.0f µs = %.0f µs (of the JVM's, the JIT compiler %.0f µs);"
                            + " JVM threads started per delivery %.2f",
                    jvmCores,
                    postgresCores,
                    machineCores,
                    Runtime.getRuntime().availableProcessors(),
                    jvmCores * seconds * 1e6 / n,
                    postgresCores * seconds * 1e6 / n,
                    microsPerDelivery(n),
                    jitCores * seconds * 1e6 / n,
                    threadsStarted / (double) n);
        }
    }
}
