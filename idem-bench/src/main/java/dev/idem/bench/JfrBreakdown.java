package dev.idem.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where this JVM's CPU goes during a phase: JDK Flight Recorder's execution samples (every 10 ms of each running Java
 * thread), counted by thread (the HTTP server's request threads, the group commit's writer, the engine's, the load
 * client's) and, on the request threads, by what the sampled frame was doing: the first frame, from the top, that
 * belongs to a known library or to Idem (a frame in the JDK itself counts for the first non-JDK caller above it,
 * except the JDK's cryptography, which is the verification's HMAC).
 */
final class JfrBreakdown implements AutoCloseable {
    private final Recording recording = new Recording();

    JfrBreakdown() {
        recording.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(10));
        recording.start();
    }

    /** Stops recording and returns the breakdown's lines. */
    List<String> stop() throws Exception {
        recording.stop();
        Path file = Files.createTempFile("idem-write-path", ".jfr");
        try {
            recording.dump(file);
            Map<String, Integer> threads = new TreeMap<>();
            Map<String, Integer> onRequest = new TreeMap<>();
            int total = 0;
            int request = 0;
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                if (!e.getEventType().getName().equals("jdk.ExecutionSample")) continue;
                String thread = threadKind(e.getThread("sampledThread").getJavaName());
                total++;
                threads.merge(thread, 1, Integer::sum);
                if (thread.equals("HTTP request threads")) {
                    request++;
                    onRequest.merge(
                            what(
                                    e.getStackTrace() == null
                                            ? List.of()
                                            : e.getStackTrace().getFrames()),
                            1,
                            Integer::sum);
                }
            }
            return List.of(
                    "  JFR samples by thread (" + total + "): " + shares(threads, total),
                    "  on the HTTP request threads (" + request + "), by the code running: "
                            + shares(onRequest, request));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static String shares(Map<String, Integer> counts, int total) {
        Map<String, Integer> sorted = new LinkedHashMap<>();
        counts.entrySet().stream()
                .sorted((a, b) -> b.getValue() - a.getValue())
                .forEach(x -> sorted.put(x.getKey(), x.getValue()));
        StringBuilder out = new StringBuilder();
        sorted.forEach((k, v) -> out.append(out.length() == 0 ? "" : ", ")
                .append(k)
                .append(String.format(" %.0f%%", 100.0 * v / Math.max(1, total))));
        return out.toString();
    }

    private static String threadKind(String name) {
        if (name == null) return "other";
        if (name.startsWith("JettyServerThreadPool") || name.startsWith("qtp")) return "HTTP request threads";
        if (name.equals("idem-group-commit")) return "group commit writer";
        if (name.startsWith("pool-")) return "load client";
        if (name.startsWith("idem-") || name.startsWith("dispatcher") || name.startsWith("HttpClient"))
            return "engine and store (" + name.replaceAll("[-_ ]?\\d+$", "") + ")";
        return "other (" + name.replaceAll("[-_ ]?\\d+$", "") + ")";
    }

    private static String what(List<RecordedFrame> frames) {
        for (RecordedFrame f : frames) {
            if (f.getMethod() == null) continue;
            String c = f.getMethod().getType().getName();
            if (c.startsWith("com.sun.crypto") || c.startsWith("javax.crypto") || c.startsWith("sun.security"))
                return "HMAC and digests (JDK crypto)";
            if (c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.")) continue;
            if (c.startsWith("com.fasterxml.jackson")) return "JSON (Jackson)";
            if (c.startsWith("org.eclipse.jetty")) return "HTTP server (Jetty)";
            if (c.startsWith("io.javalin")) return "routing (Javalin)";
            if (c.startsWith("org.postgresql") || c.startsWith("org.sqlite") || c.startsWith("com.zaxxer"))
                return "JDBC driver and pool";
            if (c.startsWith("dev.idem.wire")) return "Idem wire (verifiers)";
            if (c.startsWith("dev.idem.server")) return "Idem server (" + simple(c) + ")";
            if (c.startsWith("dev.idem.core")) return "Idem core";
            if (c.startsWith("dev.idem.store")) return "Idem store";
            if (c.startsWith("org.slf4j") || c.startsWith("ch.qos")) return "logging";
            if (c.startsWith("io.micrometer")) return "metrics";
            return "other (" + c.replaceAll("\\.[^.]*$", "") + ")";
        }
        return "JDK only (I/O, locks, collections)";
    }

    private static String simple(String className) {
        String s = className.substring(className.lastIndexOf('.') + 1);
        int inner = s.indexOf('$');
        return inner < 0 ? s : s.substring(0, inner);
    }

    @Override
    public void close() {
        recording.close();
    }
}
