package dev.idem.cli;

import static dev.idem.cli.ContainerFiles.interpolate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.cli.ContainerFiles.Instruction;
import dev.idem.core.Durations;
import dev.idem.engine.EngineConfig;
import java.io.InputStream;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The container files checked without a container runtime (this machine has none): the Dockerfile's stages, user,
 * health check, volume and ports, and that every {@code IDEM_*} variable in it and in compose.yaml is a real
 * setting of {@code idem serve} with a value {@code serve} accepts. {@code ContainerCommandIT} runs the image's
 * command itself.
 */
class ContainerFilesTest {
    final List<Instruction> dockerfile = ContainerFiles.dockerfile();
    final List<Instruction> runtime = ContainerFiles.finalStage(dockerfile);
    final Map<String, String> imageEnv = ContainerFiles.env(runtime);

    List<Instruction> all(List<Instruction> in, String keyword) {
        return in.stream().filter(i -> i.keyword().equals(keyword)).toList();
    }

    Instruction one(List<Instruction> in, String keyword) {
        List<Instruction> found = all(in, keyword);
        assertThat(found).as(keyword).hasSize(1);
        return found.get(0);
    }

    @Test
    void aMavenStageBuildsTheFatJarAndAJre17StageRunsIt() {
        List<Instruction> froms = all(dockerfile, "FROM");
        assertThat(froms).hasSize(2);
        assertThat(froms.get(0).args()).matches("maven:\\S*(temurin|jdk)\\S*17\\S* AS build");
        assertThat(froms.get(1).args()).matches("\\S+:17-jre\\S*");
        assertThat(all(dockerfile, "RUN").stream().filter(r -> r.stage() == 0).map(Instruction::args))
                .anySatisfy(r -> assertThat(r).endsWith("mvn -B -pl idem-cli -am package -DskipTests"));
        Instruction copyJar = all(runtime, "COPY").stream()
                .filter(c -> c.args().startsWith("--from=build"))
                .findFirst()
                .orElseThrow();
        assertThat(copyJar.args()).isEqualTo("--from=build /src/idem-cli/target/idem.jar /opt/idem/idem.jar");
        assertThat(String.join(" ", one(runtime, "ENTRYPOINT").execForm())).contains("-jar /opt/idem/idem.jar");
        assertThat(one(runtime, "CMD").execForm()).containsExactly("serve");
        assertThat(all(runtime, "COPY")).anySatisfy(c -> assertThat(c.args()).isEqualTo("LICENSE /opt/idem/LICENSE"));
    }

    @Test
    void theNodeRunsAsTheUnprivilegedUserTheImageCreates() {
        String user = one(runtime, "USER").args();
        assertThat(user).doesNotStartWith("root").doesNotStartWith("0:").isNotEqualTo("0");
        String uid = user.split(":")[0];
        assertThat(Integer.parseInt(uid))
                .as("a numeric uid, so runAsNonRoot can check it")
                .isGreaterThanOrEqualTo(1000);
        Instruction arg = one(runtime, "ARG");
        assertThat(arg.args()).isEqualTo("IDEM_UID=" + uid);
        String run = all(runtime, "RUN").get(0).args();
        assertThat(run)
                .contains("useradd --system --uid \"${IDEM_UID}\"")
                .contains("chown idem:idem " + imageEnv.get("IDEM_DATA_DIR"));
    }

    @Test
    void theHealthCheckRunsAClassOfTheJarThatAsksAnExistingRoute() throws Exception {
        Instruction hc = one(runtime, "HEALTHCHECK");
        assertThat(hc.args()).contains("--interval=").contains("--timeout=").contains("--start-period=");
        List<String> cmd = hc.execForm();
        assertThat(cmd.get(0)).isEqualTo("java");
        assertThat(cmd).containsSubsequence("-cp", "/opt/idem/idem.jar", HealthCheck.class.getName());
        assertThat(HealthCheck.PATH).isEqualTo("/readyz");
        try (InputStream in = getClass().getResourceAsStream("/openapi.json")) {
            assertThat(new ObjectMapper().readTree(in).get("paths").has(HealthCheck.PATH))
                    .as("a route of the server")
                    .isTrue();
        }
        assertThat(HealthCheck.uri(imageEnv).toString())
                .isEqualTo("http://127.0.0.1:" + imageEnv.get("IDEM_PORT") + "/readyz");
    }

    @Test
    void everySettingIsAnIdemVariableTheNodeReallyReadsAndTheDataDirIsTheVolume() {
        Map<String, String> idem = new LinkedHashMap<>(imageEnv);
        idem.keySet().removeIf(k -> !k.startsWith("IDEM_"));
        idem.remove("IDEM_JAVA_OPTS");
        assertThat(String.join(" ", one(runtime, "ENTRYPOINT").execForm()))
                .as("IDEM_JAVA_OPTS is the entrypoint's")
                .contains("$IDEM_JAVA_OPTS");
        assertThat(ContainerFiles.serveEnvTwins()).containsKeys(idem.keySet().toArray(new String[0]));
        ContainerFiles.parseAsServeFlags(idem);
        assertThat(imageEnv).containsEntry("IDEM_HOST", "0.0.0.0");
        assertThat(one(runtime, "VOLUME").execForm()).containsExactly(imageEnv.get("IDEM_DATA_DIR"));
        assertThat(one(runtime, "EXPOSE").args()).isEqualTo(imageEnv.get("IDEM_PORT"));
    }

    @Test
    void theEnvTwinsAreReadFromServesOptionsAndBadValuesFailTheirParse() {
        Map<String, ?> twins = ContainerFiles.serveEnvTwins();
        assertThat(twins)
                .containsKeys(
                        "IDEM_PORT",
                        "IDEM_HOST",
                        "IDEM_DATA_DIR",
                        "IDEM_DATABASE_URL",
                        "IDEM_BOOTSTRAP_KEY",
                        "IDEM_ALLOW_PRIVATE_ENDPOINTS",
                        "IDEM_NODE_ID",
                        "IDEM_RETENTION",
                        "IDEM_LOG_FORMAT");
        assertThatThrownBy(() -> ContainerFiles.parseAsServeFlags(Map.of("IDEM_LOG_FORMAT", "xml")))
                .isInstanceOf(CommandLine.ParameterException.class);
        assertThatThrownBy(() -> ContainerFiles.parseAsServeFlags(Map.of("IDEM_RETENTION", "5m")))
                .isInstanceOf(CommandLine.ParameterException.class);
        assertThatThrownBy(() -> ContainerFiles.parseAsServeFlags(Map.of("IDEM_PORT", "http")))
                .isInstanceOf(CommandLine.ParameterException.class);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @Test
    void composeRunsTwoNodesOnOneHealthyPostgresWithOneBootstrapKey() {
        Map<String, Object> services = map(ContainerFiles.compose().get("services"));
        Map<String, Object> postgres = map(services.get("postgres"));
        Map<String, Object> pgEnv = map(postgres.get("environment"));
        assertThat(String.valueOf(postgres.get("image"))).startsWith("postgres:");
        assertThat(List.copyOf((List<String>) map(postgres.get("healthcheck")).get("test")))
                .anySatisfy(t -> assertThat(t).contains("pg_isready"));

        Map<String, Map<String, Object>> nodes = new LinkedHashMap<>();
        services.forEach((name, s) -> {
            if (map(s).containsKey("build")) nodes.put(name, map(s));
        });
        assertThat(nodes).hasSize(2);
        Set<String> nodeIds = new HashSet<>();
        Set<String> keys = new HashSet<>();
        Set<String> hostPorts = new HashSet<>();
        Pattern dbUrl = Pattern.compile("jdbc:postgresql://([^:/]+)(?::(\\d+))?/(\\w+)");
        nodes.forEach((name, node) -> {
            assertThat(String.valueOf(node.get("build"))).as(name).isEqualTo(".");
            Map<String, String> env = new LinkedHashMap<>();
            map(node.get("environment")).forEach((k, v) -> env.put(k, interpolate(v)));
            assertThat(env.keySet())
                    .as(name + ": every variable is a setting of idem serve")
                    .allSatisfy(k -> assertThat(ContainerFiles.serveEnvTwins().containsKey(k)
                                    || ContainerFiles.SERVE_ENV_WITHOUT_FLAG.contains(k))
                            .as(k)
                            .isTrue());
            ContainerFiles.parseAsServeFlags(env);
            nodeIds.add(env.get("IDEM_NODE_ID"));
            keys.add(env.get("IDEM_BOOTSTRAP_KEY"));
            Matcher url = dbUrl.matcher(env.get("IDEM_DATABASE_URL"));
            assertThat(url.matches()).as(env.get("IDEM_DATABASE_URL")).isTrue();
            assertThat(url.group(1)).isEqualTo("postgres");
            assertThat(url.group(3)).isEqualTo(interpolate(pgEnv.get("POSTGRES_DB")));
            assertThat(env.get("IDEM_DATABASE_USER")).isEqualTo(interpolate(pgEnv.get("POSTGRES_USER")));
            assertThat(env.get("IDEM_DATABASE_PASSWORD")).isEqualTo(interpolate(pgEnv.get("POSTGRES_PASSWORD")));
            // a receiver on the host is reachable by name, and only when private endpoints are allowed on purpose
            assertThat((List<Object>) node.get("extra_hosts"))
                    .as(name + " reaches the host as host.docker.internal")
                    .contains("host.docker.internal:host-gateway");
            assertThat(env.get("IDEM_ALLOW_PRIVATE_ENDPOINTS"))
                    .as(name + ": refused by default")
                    .isEqualTo("false");
            assertThat(map(map(node.get("depends_on")).get("postgres")).get("condition"))
                    .isEqualTo("service_healthy");
            assertThat(Durations.parse(String.valueOf(node.get("stop_grace_period"))))
                    .as("docker stop waits longer than the node's shutdown grace")
                    .isGreaterThan(EngineConfig.defaults("x").shutdownGrace());
            for (Object p : (List<Object>) node.get("ports")) {
                String[] parts = String.valueOf(p).split(":");
                assertThat(parts[parts.length - 1])
                        .as("the container port is the image's")
                        .isEqualTo(imageEnv.get("IDEM_PORT"));
                hostPorts.add(parts[parts.length - 2]);
            }
        });
        assertThat(nodeIds).as("distinct node ids").hasSize(2).doesNotContainNull();
        assertThat(keys).as("one shared bootstrap key").hasSize(1);
        assertThat(keys.iterator().next()).startsWith("sk_test_");
        assertThat(hostPorts).hasSize(2);
    }
}
