package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code idem event-types list|get|create|update|delete}: kinds of message by name, with their JSON Schemas. */
@Command(
        name = "event-types",
        mixinStandardHelpOptions = true,
        description = "Create, list, read, change and delete event types on a running Idem server.",
        subcommands = {EventTypesCommand.List.class, EventTypesCommand.Create.class, EventTypesCommand.Update.class})
public final class EventTypesCommand {
    static final String PATH = "/v1/event-types";

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List event types in name order.")
    static final class List extends FanoutTables.Listing implements Callable<Integer> {
        @Override
        public Integer call() {
            conn.print(conn.api().get(PATH + query()), FanoutTables::eventTypes);
            return Failures.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Show one event type with its schema.")
    int get(@Mixin Connection conn, @Parameters(paramLabel = "NAME") String name) {
        conn.print(conn.api().get(PATH + "/" + Api.segment(name)), Views::object);
        return Failures.OK;
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete an event type: messages keep its name and are no longer checked.")
    int delete(@Mixin Connection conn, @Parameters(paramLabel = "NAME") String name) {
        conn.print(conn.api().send("DELETE", PATH + "/" + Api.segment(name), null, null), Views::object);
        return Failures.OK;
    }

    /** The fields create and update share; each given one goes into the body. */
    static class Fields {
        @Option(names = "--description", description = "A description for people.")
        String description;

        @Option(
                names = "--schema",
                converter = JsonOption.class,
                description = "A JSON Schema its payloads must conform to (JSON text).")
        JsonNode schema;

        @Option(names = "--schema-file", description = "The JSON Schema, from a file.")
        java.nio.file.Path schemaFile;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Option(names = "--example", converter = JsonOption.class, description = "An example payload (JSON text).")
        JsonNode example;

        @Option(names = "--deprecated", negatable = true, description = "Mark it deprecated (a label; it still sends).")
        Boolean deprecated;

        ObjectNode body() {
            ObjectNode b = JsonNodeFactory.instance.objectNode();
            if (description != null) b.put("description", description);
            if (schema != null && schemaFile != null)
                throw new picocli.CommandLine.ParameterException(
                        spec.commandLine(), "give --schema or --schema-file, not both");
            if (schema != null) b.set("schema", schema);
            if (schemaFile != null) b.set("schema", JsonOption.file(schemaFile, spec));
            if (example != null) b.set("example", example);
            if (deprecated != null) b.put("deprecated", deprecated);
            return b;
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create an event type.")
    static final class Create extends Fields implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Parameters(paramLabel = "NAME", description = "Its name, e.g. invoice.paid.")
        String name;

        @Option(
                names = "--idempotency-key",
                description = "Sent as Idempotency-Key (run again with it after a failure).")
        String idempotencyKey;

        @Override
        public Integer call() {
            ObjectNode body = JsonNodeFactory.instance.objectNode().put("name", name);
            body.setAll(body());
            conn.print(conn.api().send("POST", PATH, body, idempotencyKey), Views::object);
            return Failures.OK;
        }
    }

    @Command(
            name = "update",
            mixinStandardHelpOptions = true,
            description = "Change an event type: only the options given change.")
    static final class Update extends Fields implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Parameters(paramLabel = "NAME")
        String name;

        @Option(names = "--no-schema", description = "Drop its schema (payloads are no longer checked).")
        boolean noSchema;

        @Override
        public Integer call() {
            ObjectNode body = body();
            if (noSchema) body.putNull("schema");
            if (body.isEmpty()) throw conn.usage("give at least one option to change (--schema, --description, …)");
            conn.print(conn.api().send("PATCH", PATH + "/" + Api.segment(name), body, null), Views::object);
            return Failures.OK;
        }
    }
}
