package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.cli.ContainerFiles.Instruction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's command run outside a container (no container runtime here): the Dockerfile's ENTRYPOINT and CMD
 * through {@code sh}, with the image's ENV, its WORKDIR being the data directory, and only the jar's path and the
 * volume's place changed. It starts a node that answers, its HEALTHCHECK command says unhealthy before and healthy
 * after, and SIGTERM (what {@code docker stop} sends) stops it gracefully.
 */
class ContainerCommandIT {
    static final String IMAGE_JAR = "/opt/idem/idem.jar";
    static final String KEY = "sk_test_container_0123456789";
    final List<Instruction> runtime = ContainerFiles.finalStage(ContainerFiles.dockerfile());
    NodeProcess node;

    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        if (node != null) node.close();
    }

    List<String> command(String keyword) {
        List<String> cmd = new ArrayList<>();
        for (Instruction i : runtime) {
            if (i.keyword().equals(keyword)) cmd.addAll(i.execForm());
        }
        return cmd.stream()
                .map(s -> s.replace(IMAGE_JAR, NodeProcess.JAR.toAbsolutePath().toString()))
                .toList();
    }

    Map<String, String> containerEnv(int port, Path volume) {
        Map<String, String> env = new HashMap<>(ContainerFiles.env(runtime));
        env.put("IDEM_PORT", Integer.toString(port));
        env.put("IDEM_DATA_DIR", volume.toString());
        // as `docker run -e …` would: the settings a user adds
        env.put("IDEM_BOOTSTRAP_KEY", KEY);
        env.put("IDEM_LOG_FORMAT", "json");
        env.put("IDEM_RETENTION", "7d");
        env.put("IDEM_NODE_ID", "container-1");
        // `java` is the JRE's on the image's PATH; here the one running this test
        env.put("PATH", Path.of(NodeProcess.java()).getParent() + java.io.File.pathSeparator + System.getenv("PATH"));
        return env;
    }

    int healthCheck(Map<String, String> env, Path out) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command("HEALTHCHECK"))
                .redirectErrorStream(true)
                .redirectOutput(out.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("IDEM_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }

    @Test
    void theImagesCommandStartsANodeThatItsHealthCheckFindsReadyAndSigtermStopsIt() throws Exception {
        int port = NodeProcess.freePort();
        Path volume = Files.createDirectories(tmp.resolve("var-lib-idem"));
        Map<String, String> env = containerEnv(port, volume);
        List<String> entrypoint = new ArrayList<>(command("ENTRYPOINT"));
        entrypoint.addAll(command("CMD"));
        assertThat(entrypoint.get(0)).isEqualTo("sh");

        Path probe = tmp.resolve("probe.txt");
        assertThat(healthCheck(env, probe)).as("no node yet: unhealthy").isEqualTo(1);
        assertThat(Files.readString(probe)).startsWith("not ready: http://127.0.0.1:" + port + "/readyz");

        node = NodeProcess.start(entrypoint, tmp.resolve("logs"), port, KEY, env, volume)
                .awaitReady();
        assertThat(healthCheck(env, probe)).as(Files.readString(probe)).isZero();
        assertThat(Files.readString(probe)).startsWith("ready: ").contains("\"status\":\"ready\"");
        assertThat(volume.resolve("idem.db")).as("SQLite in the volume").exists();
        assertThat(node.get("/v1/schedules").statusCode())
                .as("the bootstrap key from the environment works")
                .isEqualTo(200);

        assertThat(node.stop()).as("exit after SIGTERM").isIn(0, 143);
        ObjectMapper json = new ObjectMapper();
        List<String> messages = new ArrayList<>();
        for (String line : node.stderrLines()) {
            JsonNode l = json.readTree(line);
            assertThat(l.get("node_id").asText()).isEqualTo("container-1");
            messages.add(l.get("message").asText());
        }
        assertThat(messages)
                .anySatisfy(m ->
                        assertThat(m).contains("on http://0.0.0.0:" + port).contains("finished deliveries kept 7d"));
        assertThat(messages)
                .as("the shutdown hook ran: java got the signal, not only sh")
                .anySatisfy(m -> assertThat(m).isEqualTo("idem stopped"));
    }
}
