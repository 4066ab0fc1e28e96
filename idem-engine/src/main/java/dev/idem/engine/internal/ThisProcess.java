package dev.idem.engine.internal;

import dev.idem.core.store.NodeRegistry.NodeProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * This process as a node record shows it, and whether a process recorded on this same machine has ended.
 *
 * <p>The machine is named by host name, Linux boot id and pid namespace: two containers (or two hosts) that share a host
 * name have different ones, so a pid is only ever looked up where it means the same process. Where the boot id cannot
 * be read (not Linux) the machine is unknown and no process is ever declared ended this way (the takeover window
 * decides instead). A pid reused by a later process is told apart by its start time.
 */
public final class ThisProcess {
    /** Start times read back from the OS may be rounded differently than when they were recorded. */
    private static final Duration START_TOLERANCE = Duration.ofSeconds(1);

    private ThisProcess() {}

    /** Looked up once: the host name may cost a DNS query. */
    private static final class Here {
        static final String HOST = hostName();
        static final String MACHINE = machine(HOST);
    }

    /** This process's record. */
    public static NodeProcess describe() {
        ProcessHandle me = ProcessHandle.current();
        return new NodeProcess(
                Here.HOST, Here.MACHINE, me.pid(), me.info().startInstant().orElse(null));
    }

    /** Whether {@code other} ran on this machine and its process is gone (or its pid now belongs to a later process). */
    public static boolean hasEnded(NodeProcess other) {
        if (!onThisMachine(other)) return false;
        Optional<ProcessHandle> p = ProcessHandle.of(other.pid());
        if (p.isEmpty() || !p.get().isAlive()) return true;
        Optional<Instant> started = p.get().info().startInstant();
        return other.processStart() != null
                && started.isPresent()
                && Duration.between(other.processStart(), started.get()).abs().compareTo(START_TOLERANCE) > 0;
    }

    /** Whether {@code other} is a process that is running on this machine now (so certainly alive). */
    public static boolean isRunningHere(NodeProcess other) {
        return onThisMachine(other) && other.processStart() != null && !hasEnded(other);
    }

    private static boolean onThisMachine(NodeProcess other) {
        return !Here.MACHINE.isEmpty() && Here.MACHINE.equals(other.machine());
    }

    private static String machine(String host) {
        String boot = read(Path.of("/proc/sys/kernel/random/boot_id"));
        if (boot.isEmpty()) return "";
        String pidNamespace;
        try {
            pidNamespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            pidNamespace = "";
        }
        return host + "/" + boot + "/" + pidNamespace;
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            String env = System.getenv("HOSTNAME");
            return env == null || env.isBlank() ? "localhost" : env;
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (IOException | SecurityException e) {
            return "";
        }
    }
}
