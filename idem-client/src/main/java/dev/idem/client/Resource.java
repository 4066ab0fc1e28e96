package dev.idem.client;

import com.fasterxml.jackson.databind.JavaType;
import dev.idem.client.internal.ApiCall;
import dev.idem.client.internal.Json;
import dev.idem.client.internal.Query;
import dev.idem.client.model.JsonFields;
import dev.idem.client.model.ListParams;
import java.util.function.Function;

/**
 * The five calls of a resource under {@code /v1/<things>}: create, get, list, update, delete. Every mutating call is
 * idempotent (its own {@code Idempotency-Key}, reused by its retries). Applications are named by id or uid, event types
 * by name.
 *
 * @param <T> what the API answers
 * @param <F> the body of a create or an update
 */
public class Resource<T, F extends JsonFields<F>> {
    final IdemClient client;
    private final String base;
    private final Class<T> item;
    private final JavaType type;
    private final Function<T, String> keyOf;

    Resource(IdemClient client, String base, Class<T> item, Function<T, String> keyOf) {
        this.client = client;
        this.base = base;
        this.item = item;
        this.type = Json.MAPPER.constructType(item);
        this.keyOf = keyOf;
    }

    /** {@code POST /v1/<things>}: 201 with the new object. */
    public T create(F fields) {
        return create(fields, RequestOptions.none());
    }

    public T create(F fields, RequestOptions options) {
        return client.send(ApiCall.<T>mutate("POST", base, fields.bytes(), type), options)
                .value();
    }

    /** {@code GET /v1/<things>/{key}}; a missing one is an {@link IdemException} of type {@code not_found_error}. */
    public T get(String key) {
        return client.send(ApiCall.<T>get(path(key), type), RequestOptions.none())
                .value();
    }

    /** {@code GET /v1/<things>}; the page walks on to the rest with {@link Page#autoPaging()}. */
    public Page<T> list(ListParams params) {
        return client.list(base, params, item, keyOf);
    }

    public Page<T> list() {
        return list(ListParams.none());
    }

    /** {@code PATCH /v1/<things>/{key}}: only the fields set change. */
    public T update(String key, F fields) {
        return update(key, fields, RequestOptions.none());
    }

    public T update(String key, F fields, RequestOptions options) {
        return client.send(ApiCall.<T>mutate("PATCH", path(key), fields.bytes(), type), options)
                .value();
    }

    /** {@code DELETE /v1/<things>/{key}}: the object as it is after (deleted objects stay readable, event types go). */
    public T delete(String key) {
        return delete(key, RequestOptions.none());
    }

    public T delete(String key, RequestOptions options) {
        return client.send(ApiCall.<T>mutate("DELETE", path(key), null, type), options)
                .value();
    }

    String path(String key) {
        return base + "/" + Query.segment(key);
    }
}
