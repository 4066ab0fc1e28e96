package dev.idem.client;

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
    private final ResourceCalls<T> calls;

    Resource(IdemClient client, String base, Class<T> item, Function<T, String> keyOf) {
        this.client = client;
        this.calls = new ResourceCalls<>(client, base, item, keyOf);
    }

    /** {@code POST /v1/<things>}: 201 with the new object. */
    public T create(F fields) {
        return create(fields, RequestOptions.none());
    }

    public T create(F fields, RequestOptions options) {
        return calls.create(fields.bytes(), options).value();
    }

    /** {@code GET /v1/<things>/{key}}; a missing one is an {@link IdemException} of type {@code not_found_error}. */
    public T get(String key) {
        return calls.get(key);
    }

    /** {@code GET /v1/<things>}; the page walks on to the rest with {@link Page#autoPaging()}. */
    public Page<T> list(ListParams params) {
        return calls.list(params);
    }

    public Page<T> list() {
        return list(ListParams.none());
    }

    /** {@code PATCH /v1/<things>/{key}}: only the fields set change. */
    public T update(String key, F fields) {
        return update(key, fields, RequestOptions.none());
    }

    public T update(String key, F fields, RequestOptions options) {
        return calls.mutate("PATCH", path(key), fields.bytes(), options);
    }

    /** {@code DELETE /v1/<things>/{key}}: the object as it is after (deleted objects stay readable, event types go). */
    public T delete(String key) {
        return delete(key, RequestOptions.none());
    }

    public T delete(String key, RequestOptions options) {
        return calls.mutate("DELETE", path(key), null, options);
    }

    String path(String key) {
        return calls.path(key);
    }
}
