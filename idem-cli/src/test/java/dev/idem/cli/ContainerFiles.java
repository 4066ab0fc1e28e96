package dev.idem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The repository's {@code Dockerfile} and {@code compose.yaml} read the way Docker reads them (continuation lines,
 * comments, exec-form JSON arrays, {@code ${VAR:-default}} interpolation), and {@code idem serve}'s environment
 * twins read from its picocli model: for the structural test and for the test that runs the image's command.
 */
final class ContainerFiles {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** Read by {@code idem serve} itself rather than as a flag's default (docs/production.md: credentials stay out of URLs and argv). */
    static final List<String> SERVE_ENV_WITHOUT_FLAG =
            List.of("IDEM_DATABASE_USER", "IDEM_DATABASE_PASSWORD", "IDEM_MASTER_KEY");

    private ContainerFiles() {}

    /** One instruction: its keyword (upper case), its arguments as written, and the build stage (0-based) it is in. */
    record Instruction(String keyword, String args, int stage) {
        List<String> execForm() {
            try {
                return List.of(new ObjectMapper().readValue(args.substring(args.indexOf('[')), String[].class));
            } catch (IOException e) {
                throw new AssertionError(keyword + " is not in exec form (a JSON array): " + args, e);
            }
        }
    }

    static List<Instruction> dockerfile() {
        List<Instruction> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int stage = -1;
        for (String raw : read(ROOT.resolve("Dockerfile")).split("\n")) {
            String line = raw.strip();
            if (line.startsWith("#") || (line.isEmpty() && current.length() == 0)) continue;
            boolean continued = line.endsWith("\\");
            current.append(continued ? line.substring(0, line.length() - 1) : line)
                    .append(' ');
            if (continued) continue;
            String text = current.toString().strip();
            current.setLength(0);
            if (text.isEmpty()) continue;
            int space = text.indexOf(' ');
            String keyword =
                    text.substring(0, space < 0 ? text.length() : space).toUpperCase(java.util.Locale.ROOT);
            if (keyword.equals("FROM")) stage++;
            out.add(new Instruction(
                    keyword, space < 0 ? "" : text.substring(space + 1).strip(), stage));
        }
        return out;
    }

    static List<Instruction> finalStage(List<Instruction> all) {
        int last = all.stream().mapToInt(Instruction::stage).max().orElseThrow();
        return all.stream().filter(i -> i.stage() == last).toList();
    }

    /** {@code ENV K=V K2="v 2"} of the given instructions, in order. */
    static Map<String, String> env(List<Instruction> instructions) {
        Map<String, String> env = new LinkedHashMap<>();
        Pattern pair = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\"([^\"]*)\"|(\\S*))");
        for (Instruction i : instructions) {
            if (!i.keyword().equals("ENV")) continue;
            Matcher m = pair.matcher(i.args());
            while (m.find()) env.put(m.group(1), m.group(3) != null ? m.group(3) : m.group(4));
        }
        return env;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> compose() {
        return (Map<String, Object>) new Yaml().load(read(ROOT.resolve("compose.yaml")));
    }

    private static final Pattern INTERPOLATION = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?}");

    /** Compose's {@code ${VAR:-default}} with nothing set in the environment: the default (or empty). */
    static String interpolate(Object value) {
        Matcher m = INTERPOLATION.matcher(String.valueOf(value));
        StringBuilder sb = new StringBuilder();
        while (m.find()) m.appendReplacement(sb, Matcher.quoteReplacement(m.group(2) == null ? "" : m.group(2)));
        m.appendTail(sb);
        return sb.toString();
    }

    /** {@code IDEM_…} → the {@code serve} option whose default reads it ({@code ${env:IDEM_…}}), from picocli's model. */
    static Map<String, OptionSpec> serveEnvTwins() {
        CommandSpec serve =
                IdemCommand.commandLine().getSubcommands().get("serve").getCommandSpec();
        serve.interpolateVariables(false);
        Map<String, OptionSpec> twins = new TreeMap<>();
        Pattern env = Pattern.compile("\\$\\{env:([A-Z0-9_]+)");
        for (OptionSpec o : serve.options()) {
            Matcher m = env.matcher(String.valueOf(o.defaultValue()));
            if (m.find()) twins.put(m.group(1), o);
        }
        return twins;
    }

    /**
     * Parses {@code idem serve} with each variable given as its twin flag instead, so picocli's own converters judge the
     * values (a bad enum, duration or number is a {@link CommandLine.ParameterException}).
     */
    static void parseAsServeFlags(Map<String, String> env) {
        Map<String, OptionSpec> twins = serveEnvTwins();
        List<String> args = new ArrayList<>();
        env.forEach((k, v) -> {
            OptionSpec o = twins.get(k);
            if (o != null) args.add(o.longestName() + "=" + v);
        });
        new CommandLine(new ServeCommand())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .parseArgs(args.toArray(new String[0]));
    }

    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
