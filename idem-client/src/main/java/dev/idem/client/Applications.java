package dev.idem.client;

import com.fasterxml.jackson.databind.JavaType;
import dev.idem.client.internal.ApiCall;
import dev.idem.client.internal.Json;
import dev.idem.client.internal.Query;
import dev.idem.client.model.Application;
import dev.idem.client.model.ApplicationFields;
import dev.idem.client.model.PortalAccess;
import dev.idem.client.model.PortalAccessRequest;

/**
 * {@code /v1/applications}: your customers, by id or uid; and the portal links that let one of them manage its own
 * endpoints and see its own messages (docs/portal.md).
 */
public final class Applications extends Resource<Application, ApplicationFields> {
    private static final JavaType ACCESS = Json.MAPPER.constructType(PortalAccess.class);
    private static final JavaType REVOKED = Json.MAPPER.constructType(com.fasterxml.jackson.databind.JsonNode.class);

    Applications(IdemClient client) {
        super(client, "/v1/applications", Application.class, Application::id);
    }

    /**
     * {@code POST /v1/applications/{key}/portal-access}: a new portal link to the application (id or uid). A retry
     * after a lost answer mints a second link, which does no harm.
     */
    public PortalAccess portalAccess(String application, PortalAccessRequest request) {
        return portalAccess(application, request, RequestOptions.none());
    }

    public PortalAccess portalAccess(String application, PortalAccessRequest request, RequestOptions options) {
        return client.send(
                        ApiCall.<PortalAccess>mutate("POST", accessPath(application), request.bytes(), ACCESS), options)
                .value();
    }

    /**
     * {@code DELETE /v1/applications/{key}/portal-access[?session=]}: revokes the links labelled {@code session}, or
     * every link of the application when it is null; sessions already open end on their next request.
     *
     * @return how many links were revoked
     */
    public int revokePortalAccess(String application, String session) {
        String path = accessPath(application) + (session == null ? "" : "?session=" + Query.segment(session));
        com.fasterxml.jackson.databind.JsonNode r = client.send(
                        ApiCall.<com.fasterxml.jackson.databind.JsonNode>mutate("DELETE", path, null, REVOKED),
                        RequestOptions.none())
                .value();
        return r.path("revoked").asInt();
    }

    private String accessPath(String application) {
        return path(application) + "/portal-access";
    }
}
