package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code idem schedules create --file schedules.jsonl}: one create body per line (blank lines skipped), sent as
 * {@code POST /v1/schedules/batch} calls of up to {@value #PER_CALL} bodies each, in file order.
 */
final class BatchFile {
    static final int PER_CALL = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private BatchFile() {}

    /** The batch request bodies for the file; a line that is not a JSON object is a usage error naming the line. */
    static List<String> requests(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        ObjectNode body = null;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) continue;
            JsonNode item;
            try {
                item = JSON.readTree(lines.get(i));
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        file + " line " + (i + 1) + " is not JSON: " + getOriginalMessageOrNull(e));
            }
            if (!item.isObject())
                throw new IllegalArgumentException(
                        file + " line " + (i + 1) + " is not a JSON object (one schedule body per line)");
            if (body == null || body.get("schedules").size() == PER_CALL) {
                if (body != null) out.add(JSON.writeValueAsString(body));
                body = JSON.createObjectNode();
                body.putArray("schedules");
            }
            ((ArrayNode) body.get("schedules")).add(item);
        }
        if (body != null) out.add(JSON.writeValueAsString(body));
        return out;
    }

    /** Whether every item of a batch answer was created or deduplicated. */
    static boolean allCreated(com.fasterxml.jackson.databind.JsonNode answer) {
        return answer.path("failed").asInt(-1) == 0;
    }

    private static String getOriginalMessageOrNull(IOException e) {
        return e instanceof com.fasterxml.jackson.core.JsonProcessingException j
                ? j.getOriginalMessage()
                : e.getMessage();
    }
}
