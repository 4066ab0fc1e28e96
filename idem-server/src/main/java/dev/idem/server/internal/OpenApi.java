package dev.idem.server.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The OpenAPI 3.1 document of the API, shipped as a resource and served verbatim. */
final class OpenApi {
    private static volatile byte[] cached;

    private OpenApi() {}

    static byte[] document() {
        byte[] doc = cached;
        if (doc == null) {
            try (InputStream in = OpenApi.class.getResourceAsStream("/openapi.json")) {
                if (in == null) throw new IllegalStateException("openapi.json is missing from the server's resources");
                doc = in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read openapi.json", e);
            }
            cached = doc;
        }
        return doc;
    }
}
