package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fat jar's manners, run as a user runs it: one line saying what failed and what to do (never a stack trace)
 * and the exit codes 0 ok, 1 refused or failed, 2 bad usage, 3 server unreachable.
 */
class CommandLineIT {
    @TempDir
    Path dir;

    record Run(int code, String out, String err) {
        /** The non-blank lines of stderr. */
        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }

        /** No stack trace and no log line at ERROR anywhere in the output. */
        Run clean() {
            assertThat(out + err).as(out + err).doesNotContain("\tat ", "Exception in thread", " ERROR ");
            return this;
        }
    }

    static Run idem(String... args) throws Exception {
        return idem(java.util.Map.of(), args);
    }

    /** @param env {@code IDEM_*} variables for the process (any others it inherited are removed) */
    static Run idem(java.util.Map<String, String> env, String... args) throws Exception {
        List<String> command = NodeProcess.javaCommand(
                "-jar", Path.of("target", "idem.jar").toAbsolutePath().toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("IDEM_"));
        pb.environment().putAll(env);
        Path out = Files.createTempFile("idem-out", ".txt");
        Path err = Files.createTempFile("idem-err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS))
                .as("idem " + String.join(" ", args) + " ends")
                .isTrue();
        Run r = new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void idemAlonePrintsTheUsageOnStderrAndExits2() throws Exception {
        Run r = idem().clean();
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("Usage: idem").contains("serve", "schedules", "listen");
    }

    @Test
    void anUnreachableServerIsOneLineAndExit3() throws Exception {
        int port = freePort();
        Run r = idem("schedules", "list", "--url", "http://127.0.0.1:" + port, "--api-key", "sk_test_whatever123")
                .clean();
        assertThat(r.code()).isEqualTo(3);
        assertThat(r.errLines())
                .containsExactly("idem: cannot reach the Idem server at http://127.0.0.1:" + port
                        + ": connection refused; is `./idem serve` running there? (set --url or IDEM_URL)");
    }

    @Test
    void theServerAndKeyComeFromIdemUrlAndIdemApiKeyWhenTheFlagsAreAbsent() throws Exception {
        int port = freePort();
        Run unreachable = idem(
                        java.util.Map.of("IDEM_URL", "http://127.0.0.1:" + port, "IDEM_API_KEY", "sk_test_whatever123"),
                        "deliveries",
                        "list",
                        "--status",
                        "dead")
                .clean();
        assertThat(unreachable.code()).isEqualTo(3);
        assertThat(unreachable.errLines())
                .singleElement()
                .asString()
                .startsWith("idem: cannot reach the Idem server at http://127.0.0.1:" + port);
        Run noKey = idem(
                        java.util.Map.of("IDEM_URL", "http://127.0.0.1:" + port),
                        "deliveries",
                        "replay",
                        "--dead",
                        "--since",
                        "1h")
                .clean();
        assertThat(noKey.code()).isEqualTo(2);
        assertThat(noKey.errLines().get(0))
                .isEqualTo("idem: an API key is needed: --api-key sk_test_… or IDEM_API_KEY");
    }

    @Test
    void aPayloadThatIsNotJsonIsBadUsageSaidInOneLine() throws Exception {
        Run r = idem(
                        "schedules",
                        "create",
                        "--api-key",
                        "sk_test_whatever123",
                        "--endpoint",
                        "https://example.com/h",
                        "--payload",
                        "{bad")
                .clean();
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.errLines().get(0))
                .startsWith("idem: --payload is not valid JSON: ")
                .contains("line 1, column 2");
        assertThat(r.errLines().get(1)).isEqualTo("  see 'idem schedules create --help'");
    }

    @Test
    void keysRefusesADirectoryWithoutAStoreAndCreatesNothing() throws Exception {
        Path none = dir.resolve("no-store-here");
        for (String sub : List.of("list", "create")) {
            Run r = idem("keys", sub, "--data-dir", none.toString()).clean();
            assertThat(r.code()).as(sub).isEqualTo(2);
            assertThat(r.errLines()).as(sub).hasSize(1);
            assertThat(r.err())
                    .as(sub)
                    .contains("no Idem store at " + none.resolve("idem.db").toAbsolutePath(), "--data-dir");
            assertThat(none).as(sub + " created nothing").doesNotExist();
        }
    }

    @Test
    void serveOnAPortInUseSaysSoInOneLineAndExits1() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            Run r = idem(
                            "serve",
                            "--port",
                            Integer.toString(taken.getLocalPort()),
                            "--data-dir",
                            dir.resolve("data").toString())
                    .clean();
            assertThat(r.code()).isEqualTo(1);
            assertThat(r.errLines().get(r.errLines().size() - 1))
                    .isEqualTo(
                            "idem: port " + taken.getLocalPort()
                                    + " on 127.0.0.1 is already in use: stop the process that holds it, or start idem on a free port with --port (IDEM_PORT)");
            assertThat(r.err()).as("the engine never started").doesNotContain("engine ");
            // found before the first start: no project, no key shown, no store
            assertThat(r.out()).doesNotContain("Created project", "sk_");
            assertThat(dir.resolve("data").resolve("idem.db")).doesNotExist();
            assertThat(dir.resolve("data").resolve("first-start-keys.txt")).doesNotExist();
        }
    }

    @Test
    void aBadFlagValueIsBadUsage() throws Exception {
        Run r = idem("serve", "--port", "99999").clean();
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.errLines().get(0)).isEqualTo("idem: --port must be between 0 and 65535, got 99999");
    }

    @Test
    void thePreviewOfARuleWithoutDtstartFiresOnMinuteZeroOfItsHour() throws Exception {
        Run r = idem(
                        "recurrence",
                        "preview",
                        "--rrule",
                        "FREQ=DAILY;BYHOUR=9",
                        "--timezone",
                        "Europe/Paris",
                        "--count",
                        "2")
                .clean();
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).matches("LOCAL \\(Europe/Paris\\) +UTC");
        assertThat(lines.subList(1, 3)).allMatch(l -> l.matches("\\d{4}-\\d{2}-\\d{2}T09:00:00 +\\S+Z"));
        // the header's columns are the rows' columns
        assertThat(lines.get(1).indexOf(lines.get(1).split(" +")[1]))
                .isEqualTo(lines.get(0).indexOf("UTC"));
    }
}
