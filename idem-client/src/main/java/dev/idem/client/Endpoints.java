package dev.idem.client;

import dev.idem.client.internal.ApiCall;
import dev.idem.client.internal.Json;
import dev.idem.client.model.Endpoint;
import dev.idem.client.model.EndpointFields;
import dev.idem.client.model.SigningSecret;

/**
 * {@code /v1/endpoints}: the URLs your customers receive messages at, each with its own signing secret. {@code list}
 * takes {@code ListParams.builder().application(idOrUid)} for one application's.
 */
public final class Endpoints extends Resource<Endpoint, EndpointFields> {
    Endpoints(IdemClient client) {
        super(client, "/v1/endpoints", Endpoint.class, Endpoint::id);
    }

    /** {@code GET /v1/endpoints/{id}/secret}: the secret deliveries to it are signed with (the only call revealing it). */
    public SigningSecret secret(String id) {
        return client.send(
                        ApiCall.<SigningSecret>get(
                                path(id) + "/secret", Json.MAPPER.constructType(SigningSecret.class)),
                        RequestOptions.none())
                .value();
    }

    /** {@code POST /v1/endpoints/{id}/secret/rotate}: a new secret; for 24 h deliveries carry signatures by both. */
    public SigningSecret rotateSecret(String id) {
        return rotateSecret(id, RequestOptions.none());
    }

    public SigningSecret rotateSecret(String id, RequestOptions options) {
        return client.send(
                        ApiCall.<SigningSecret>mutate(
                                "POST",
                                path(id) + "/secret/rotate",
                                null,
                                Json.MAPPER.constructType(SigningSecret.class)),
                        options)
                .value();
    }
}
