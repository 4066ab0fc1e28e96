package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What a new user copies from the README and docs/ works as the page says: every {@code curl} is silent (no progress
 * meter in the middle of the JSON), the key variable is the one the command line reads, the README's walkthrough and
 * the getting-started page do not share an {@code idempotency_key} (followed in order, the second would answer
 * {@code DUPLICATE} where its page promises {@code PROCESSED}), and what the examples create is ignored by git.
 */
class DocsExamplesTest {
    static final Path ROOT = Path.of("..");
    static final Pattern CURL = Pattern.compile("(?:^|\\$\\(|[|;&]\\s*)\\s*curl\\s+([^\\n]*)");
    static final Pattern SILENT = Pattern.compile("(?:^|\\s)(?:-[a-zA-Z]*s[a-zA-Z]*|--silent)(?:\\s|$)");
    static final Pattern KEY = Pattern.compile("\"idempotency_key\":\\s*\"([^\"]+)\"");

    /** README.md, every page of docs/ and every module's README. */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.map(m -> m.resolve("README.md"))
                    .filter(Files::exists)
                    .sorted()
                    .forEach(pages::add);
        }
        return pages;
    }

    /** The lines of the page's fenced code blocks. */
    static List<String> codeLines(Path page) throws IOException {
        List<String> code = new ArrayList<>();
        boolean in = false;
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            if (line.strip().startsWith("```")) in = !in;
            else if (in) code.add(line);
        }
        return code;
    }

    @Test
    void everyCurlInTheDocsIsSilent() throws IOException {
        List<String> loud = new ArrayList<>();
        for (Path page : pages())
            for (String line : codeLines(page)) {
                Matcher m = CURL.matcher(line.strip());
                while (m.find()) if (!SILENT.matcher(m.group(1)).find()) loud.add(page + ": " + line.strip());
            }
        assertThat(loud)
                .as("curl without -s prints a progress meter into what the reader copies")
                .isEmpty();
    }

    @Test
    void theDocsNameTheApiKeyVariableAsTheCommandLineReadsIt() throws IOException {
        List<String> other = new ArrayList<>();
        for (Path page : pages())
            Files.readAllLines(page, StandardCharsets.UTF_8).stream()
                    .filter(l -> l.contains("$IDEM_KEY") || l.contains("${IDEM_KEY}"))
                    .forEach(l -> other.add(page + ": " + l.strip()));
        assertThat(other).as("the variable is IDEM_API_KEY (./idem reads it)").isEmpty();
    }

    @Test
    void theReadmeWalkthroughAndGettingStartedUseTheirOwnIdempotencyKeys() throws IOException {
        Set<String> readme = keys(ROOT.resolve("README.md"));
        Set<String> gettingStarted = keys(ROOT.resolve("docs/getting-started.md"));
        assertThat(readme).isNotEmpty();
        assertThat(gettingStarted).isNotEmpty().doesNotContainAnyElementsOf(readme);
    }

    @Test
    void theExampleReceiversDefaultDatabasesAreIgnoredByGit() throws Exception {
        for (String file : List.of("boot-receiver.db", "boot-receiver.db-wal", "receiver.db", "receiver.db-shm")) {
            Process git = new ProcessBuilder("git", "check-ignore", "--no-index", "-q", file)
                    .directory(ROOT.toFile())
                    .redirectErrorStream(true)
                    .start();
            assertThat(git.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(git.exitValue())
                    .as(file + " is ignored (git check-ignore exit 0)")
                    .isZero();
        }
        assertThat(Files.readString(
                        ROOT.resolve("examples/spring-boot-receiver/src/main/resources/application.properties")))
                .contains("jdbc:sqlite:boot-receiver.db");
    }

    private static Set<String> keys(Path page) throws IOException {
        Set<String> keys = new LinkedHashSet<>();
        Matcher m = KEY.matcher(Files.readString(page, StandardCharsets.UTF_8));
        while (m.find()) keys.add(m.group(1));
        return keys;
    }
}
