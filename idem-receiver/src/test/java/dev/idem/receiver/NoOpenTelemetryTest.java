package dev.idem.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The OpenTelemetry API is an optional dependency: an application without it must receive webhooks exactly as
 * before. A separate JVM whose class path is this test's minus every OpenTelemetry jar receives a delivery that
 * carries a {@code traceparent}; a class of the SDK that named an OpenTelemetry type on this path would fail it
 * with NoClassDefFoundError.
 */
class NoOpenTelemetryTest {
    @Test
    void aReceiverWithoutTheOpenTelemetryApiOnTheClassPathProcessesAndDeduplicatesUntraced() throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("opentelemetry-"))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(classPath).doesNotContain("opentelemetry-api");
        List<String> cmd = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                "-XX:TieredStopAtLevel=1",
                WithoutOpenTelemetry.class.getName());
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try {
            out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            assertThat(child.waitFor(2, TimeUnit.MINUTES)).isTrue();
        } finally {
            child.destroyForcibly();
        }
        assertThat(out).endsWith("PROCESSED DUPLICATE untraced");
        assertThat(child.exitValue()).as(out).isZero();
    }
}
