package dev.idem.core.portal;

import dev.idem.core.Tenant;
import java.util.List;
import java.util.Objects;

/**
 * A project's portal branding and where the portal may be embedded. Every field is optional.
 *
 * @param primaryColor {@code #rrggbb}
 * @param logoUrl an https URL
 * @param supportUrl an http(s) URL the page links to
 * @param frameAncestors the origins allowed to embed the portal; empty: none
 */
public record PortalSettings(
        Tenant tenant,
        String displayName,
        String primaryColor,
        String logoUrl,
        String supportUrl,
        List<String> frameAncestors) {
    public PortalSettings {
        Objects.requireNonNull(tenant, "tenant");
        frameAncestors = List.copyOf(frameAncestors);
    }

    public static PortalSettings defaults(Tenant tenant) {
        return new PortalSettings(tenant, null, null, null, null, List.of());
    }
}
