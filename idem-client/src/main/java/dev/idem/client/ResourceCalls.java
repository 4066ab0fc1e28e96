package dev.idem.client;

import com.fasterxml.jackson.databind.JavaType;
import dev.idem.client.internal.ApiCall;
import dev.idem.client.internal.Json;
import dev.idem.client.internal.Query;
import dev.idem.client.model.ListParams;
import java.util.function.Function;

/**
 * The calls every resource under {@code /v1/<things>} makes alike, each answering one {@code T} (or a page of them):
 * create, get by key, list, and any other mutating call. The public resource classes add their own calls and docs.
 *
 * @param <T> what the API answers
 */
final class ResourceCalls<T> {
    private final IdemClient client;
    private final String base;
    private final Class<T> item;
    private final JavaType type;
    private final Function<T, String> keyOf;

    ResourceCalls(IdemClient client, String base, Class<T> item, Function<T, String> keyOf) {
        this.client = client;
        this.base = base;
        this.item = item;
        this.type = Json.MAPPER.constructType(item);
        this.keyOf = keyOf;
    }

    /** {@code POST base} with {@code body}: the answer with its HTTP details. */
    IdemResponse<T> create(byte[] body, RequestOptions options) {
        return client.send(ApiCall.mutate("POST", base, body, type), options);
    }

    /** {@code GET base/{key}}. */
    T get(String key) {
        return client.send(ApiCall.<T>get(path(key), type), RequestOptions.none())
                .value();
    }

    /** {@code GET base} with {@code params}, a page that walks on by {@code keyOf}. */
    Page<T> list(ListParams params) {
        return client.list(base, params, item, keyOf);
    }

    /** A mutating call of {@code path} answering one {@code T}. */
    T mutate(String method, String path, byte[] body, RequestOptions options) {
        return client.send(ApiCall.<T>mutate(method, path, body, type), options).value();
    }

    /** {@code base/{key}}, the key encoded as one path segment. */
    String path(String key) {
        return base + "/" + Query.segment(key);
    }
}
