package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.portal.PortalSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code portal} object of the settings: the portal's branding and the origins that may embed it. Each value
 * reaches a page or a response header, so each is held to a strict shape: a colour is {@code #rrggbb}, the logo an
 * https URL, an origin {@code scheme://host[:port]} (a leading {@code *.} allowed) and nothing else.
 */
final class PortalSettingsFields {
    static final Set<String> FIELDS =
            Set.of("display_name", "primary_color", "logo_url", "support_url", "frame_ancestors");
    static final int MAX_ORIGINS = 20;
    private static final Pattern COLOR = Pattern.compile("#[0-9a-fA-F]{6}");
    private static final Pattern ORIGIN = Pattern.compile(
            "https?://(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:[0-9]{1,5})?");

    private PortalSettingsFields() {}

    /** {@code current} with what {@code portal} gives changed ({@code null} clears a field). */
    static PortalSettings apply(PortalSettings current, Fields f) {
        f.only(FIELDS);
        return new PortalSettings(
                current.tenant(),
                f.has("display_name") ? f.string("display_name", 100) : current.displayName(),
                f.has("primary_color") ? color(f) : current.primaryColor(),
                f.has("logo_url") ? url(f, "logo_url", true) : current.logoUrl(),
                f.has("support_url") ? url(f, "support_url", false) : current.supportUrl(),
                f.has("frame_ancestors") ? origins(f) : current.frameAncestors());
    }

    private static String color(Fields f) {
        String c = f.string("primary_color", 7);
        if (c != null && !COLOR.matcher(c).matches())
            throw ApiException.invalid(
                    "parameter_invalid", f.name("primary_color"), f.name("primary_color") + " must be #rrggbb");
        return c;
    }

    private static String url(Fields f, String field, boolean httpsOnly) {
        String u = f.string(field, 2000);
        if (u == null) return null;
        String problem = null;
        try {
            URI uri = new URI(u);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme();
            if (httpsOnly ? !scheme.equals("https") : !(scheme.equals("https") || scheme.equals("http")))
                problem = httpsOnly ? "must be an https URL" : "must be an http or https URL";
            else if (uri.getHost() == null || uri.getRawUserInfo() != null) problem = "must name a host (and no user)";
        } catch (URISyntaxException e) {
            problem = "is not a URL: " + e.getReason();
        }
        if (problem != null)
            throw ApiException.invalid("parameter_invalid", f.name(field), f.name(field) + " " + problem);
        return u;
    }

    private static List<String> origins(Fields f) {
        JsonNode n = f.raw("frame_ancestors");
        String name = f.name("frame_ancestors");
        if (n == null || n.isNull()) return List.of();
        if (!n.isArray() || n.size() > MAX_ORIGINS)
            throw ApiException.invalid(
                    "parameter_invalid_type",
                    name,
                    name + " must be an array of at most " + MAX_ORIGINS + " origins (https://shop.example.com)");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n.size(); i++) {
            JsonNode o = n.get(i);
            String param = name + "[" + i + "]";
            if (!o.isTextual()
                    || !ORIGIN.matcher(o.asText()).matches()
                    || o.asText().length() > 300)
                throw ApiException.invalid(
                        "parameter_invalid",
                        param,
                        param + " must be an origin: scheme://host[:port], no path (https://shop.example.com)");
            out.add(o.asText());
        }
        return out;
    }

    static ObjectNode view(PortalSettings s) {
        ObjectNode o = Json.object();
        o.put("display_name", s.displayName());
        o.put("primary_color", s.primaryColor());
        o.put("logo_url", s.logoUrl());
        o.put("support_url", s.supportUrl());
        ArrayNode a = o.putArray("frame_ancestors");
        s.frameAncestors().forEach(a::add);
        return o;
    }
}
