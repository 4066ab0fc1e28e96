package dev.idem.client;

import dev.idem.client.model.Endpoint;
import dev.idem.client.model.EndpointFields;

/**
 * {@code /v1/endpoints}: the URLs your customers receive messages at. {@code list} takes
 * {@code ListParams.builder().application(idOrUid)} for one application's.
 */
public final class Endpoints extends Resource<Endpoint, EndpointFields> {
    Endpoints(IdemClient client) {
        super(client, "/v1/endpoints", Endpoint.class, Endpoint::id);
    }
}
