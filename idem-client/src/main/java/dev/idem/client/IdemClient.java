package dev.idem.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.client.internal.ApiCall;
import dev.idem.client.internal.Json;
import dev.idem.client.internal.ListBody;
import dev.idem.client.internal.Transport;
import dev.idem.client.model.EventType;
import dev.idem.client.model.EventTypeFields;
import dev.idem.client.model.Health;
import dev.idem.client.model.ListParams;
import dev.idem.client.model.Occurrence;
import dev.idem.client.model.PreviewRequest;
import dev.idem.client.model.RecurrencePreview;
import dev.idem.client.model.Settings;
import dev.idem.client.model.SettingsUpdate;
import dev.idem.client.model.SigningSecret;
import dev.idem.client.model.Stats;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The Java client of Idem's HTTP API (docs/api.md, docs/client.md). Thread-safe; make one per base URL and key and share it.
 *
 * <pre>{@code
 * IdemClient idem = IdemClient.create(IdemClientConfig.builder("http://127.0.0.1:8080").apiKey("sk_test_…").build());
 * Schedule s = idem.schedules().create(ScheduleCreate.builder("https://api.example.com/hooks").delay("24h").build());
 * for (Delivery d : idem.deliveries().list(ListParams.builder().status("dead").build()).autoPaging()) idem.deliveries().replay(d.id());
 * }</pre>
 *
 * <p>Every mutating call carries an {@code Idempotency-Key} (a fresh one per call unless {@link RequestOptions} gives
 * one), and the call's retries reuse it, so a retry after a lost answer gets the first answer replayed and nothing
 * happens twice. Failures are {@link IdemException}s.
 */
public final class IdemClient {
    private static final Set<String> METHODS = Set.of("GET", "POST", "PATCH", "DELETE", "PUT");
    private final Transport transport;
    private final Schedules schedules = new Schedules(this);
    private final Deliveries deliveries = new Deliveries(this);
    private final Applications applications = new Applications(this);
    private final Endpoints endpoints = new Endpoints(this);
    private final Messages messages = new Messages(this);
    private final Resource<EventType, EventTypeFields> eventTypes =
            new Resource<>(this, "/v1/event-types", EventType.class, EventType::name);

    private IdemClient(IdemClientConfig config) {
        this.transport = new Transport(config);
    }

    public static IdemClient create(IdemClientConfig config) {
        return new IdemClient(java.util.Objects.requireNonNull(config, "config"));
    }

    public IdemClientConfig config() {
        return transport.config();
    }

    public Schedules schedules() {
        return schedules;
    }

    public Deliveries deliveries() {
        return deliveries;
    }

    /** {@code /v1/applications}: your customers, by id or uid, and their portal links. */
    public Applications applications() {
        return applications;
    }

    /** {@code /v1/endpoints}: the URLs messages go to. */
    public Endpoints endpoints() {
        return endpoints;
    }

    /** {@code /v1/messages}: events fanned out to every subscribed endpoint, each with its deliveries. */
    public Messages messages() {
        return messages;
    }

    /** {@code /v1/event-types}: kinds of message, by name, with their JSON Schemas. */
    public Resource<EventType, EventTypeFields> eventTypes() {
        return eventTypes;
    }

    /**
     * {@code POST /v1/filters/test}: whether an endpoint with {@code filter} would receive a message with {@code
     * payload} (each a map, a {@code JsonNode} or anything Jackson writes). A bad filter is a 400 naming the path in it.
     */
    public boolean testFilter(Object filter, Object payload) {
        java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("filter", filter);
        body.put("payload", payload);
        return request("POST", "/v1/filters/test", body, JsonNode.class, RequestOptions.none())
                .value()
                .path("matches")
                .asBoolean();
    }

    /** {@code GET /v1/signing-secret}: the secret deliveries of this project and mode are signed with. */
    public SigningSecret signingSecret() {
        return send(ApiCall.<SigningSecret>get("/v1/signing-secret", type(SigningSecret.class)), RequestOptions.none())
                .value();
    }

    /** {@code POST /v1/signing-secret/rotate}: a new secret; for 24 h deliveries carry signatures by both. */
    public SigningSecret rotateSigningSecret(RequestOptions options) {
        return send(
                        ApiCall.<SigningSecret>mutate(
                                "POST", "/v1/signing-secret/rotate", null, type(SigningSecret.class)),
                        options)
                .value();
    }

    /** {@code GET /v1/settings}: the alert endpoint and events of this project and mode. */
    public Settings settings() {
        return send(ApiCall.<Settings>get("/v1/settings", type(Settings.class)), RequestOptions.none())
                .value();
    }

    /** {@code PATCH /v1/settings}: changes the fields {@code update} sets; a bad value is a 400 naming the field and changes nothing. */
    public Settings updateSettings(SettingsUpdate update) {
        return updateSettings(update, RequestOptions.none());
    }

    public Settings updateSettings(SettingsUpdate update, RequestOptions options) {
        return send(
                        ApiCall.<Settings>mutate(
                                "PATCH",
                                "/v1/settings",
                                update.toJson().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                type(Settings.class)),
                        options)
                .value();
    }

    /** {@code GET /v1/recurrence/preview}: the first occurrences of a rule (no API key needed). */
    public List<Occurrence> previewRecurrence(PreviewRequest request) {
        return previewRecurrenceSearch(request).occurrences();
    }

    /**
     * As {@link #previewRecurrence}, also saying whether the node's search stopped early ({@link
     * RecurrencePreview#stoppedEarly()}), so a short list of a sparse rule is not mistaken for its end.
     */
    public RecurrencePreview previewRecurrenceSearch(PreviewRequest request) {
        return send(
                        ApiCall.<RecurrencePreview>get(
                                "/v1/recurrence/preview" + request.query(), type(RecurrencePreview.class)),
                        RequestOptions.none())
                .value();
    }

    /** {@code GET /v1/stats}: live counters of the key's project and mode. */
    public Stats stats() {
        return send(ApiCall.<Stats>get("/v1/stats", type(Stats.class)), RequestOptions.none())
                .value();
    }

    /** {@code GET /healthz}: the process is up. */
    public Health health() {
        return probe("/healthz");
    }

    /** {@code GET /readyz}: the node can reach its store; a node that cannot answers 503, returned here (not thrown, not retried). */
    public Health readiness() {
        return probe("/readyz");
    }

    private Health probe(String path) {
        IdemResponse<JsonNode> r =
                send(new ApiCall<>("GET", path, null, type(JsonNode.class), false, true), RequestOptions.none());
        JsonNode store = r.value().get("store");
        return new Health(
                r.value().path("status").asText(null),
                store == null || store.isNull() ? null : store.asText(),
                r.status());
    }

    /**
     * Any endpoint, for those this version has no typed call for yet, with the same keys, retries and errors as the
     * typed calls. A {@code POST}, {@code PATCH}, {@code PUT} or {@code DELETE} carries an {@code Idempotency-Key}.
     *
     * @param pathAndQuery under the base URL, encoded, e.g. {@code /v1/settings}
     * @param body a {@link JsonNode}, JSON text as a {@code String}, any value Jackson can write, or null
     * @param type the response's type ({@code JsonNode.class} for the raw tree)
     */
    public <T> IdemResponse<T> request(
            String method, String pathAndQuery, Object body, Class<T> type, RequestOptions options) {
        if (!METHODS.contains(method))
            throw new IllegalArgumentException("method must be one of " + METHODS + ", got " + method);
        if (!pathAndQuery.startsWith("/"))
            throw new IllegalArgumentException("path must start with /, got " + pathAndQuery);
        byte[] bytes;
        try {
            bytes = body == null
                    ? null
                    : body instanceof String s
                            ? s.getBytes(java.nio.charset.StandardCharsets.UTF_8)
                            : Json.MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the body cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
        return send(new ApiCall<>(method, pathAndQuery, bytes, type(type), !method.equals("GET"), false), options);
    }

    <T> IdemResponse<T> send(ApiCall<T> call, RequestOptions options) {
        return transport.execute(call, options);
    }

    <T> Page<T> list(String path, ListParams params, Class<T> item, Function<T, String> idOf) {
        JavaType type = Json.MAPPER.getTypeFactory().constructParametricType(ListBody.class, item);
        ListBody<T> body = send(ApiCall.<ListBody<T>>get(path + params.query(), type), RequestOptions.none())
                .value();
        return new Page<>(body.data(), body.hasMore(), params, next -> list(path, next, item, idOf), idOf);
    }

    private static JavaType type(Class<?> c) {
        return Json.MAPPER.constructType(c);
    }
}
