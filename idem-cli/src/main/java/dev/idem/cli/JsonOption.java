package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import picocli.CommandLine;

/**
 * An option whose value is JSON ({@code --filter '{"a":1}'}). Text that is not JSON is bad usage (exit 2), before
 * anything is sent. ({@code @file} is picocli's argument file, so JSON kept in a file has options of its own.)
 */
final class JsonOption implements CommandLine.ITypeConverter<JsonNode> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public JsonNode convert(String value) {
        try {
            return JSON.readTree(value);
        } catch (IOException e) {
            throw new CommandLine.TypeConversionException(
                    "not JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** The JSON in file {@code path}; a file that cannot be read or is not JSON is bad usage. */
    static JsonNode file(java.nio.file.Path path, CommandLine.Model.CommandSpec spec) {
        try {
            return JSON.readTree(java.nio.file.Files.readString(path));
        } catch (IOException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    path + " is not a JSON file: "
                            + e.getMessage().lines().findFirst().orElse(""));
        }
    }
}
