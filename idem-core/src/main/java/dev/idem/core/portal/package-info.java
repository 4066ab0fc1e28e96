/**
 * The customer portal's rules: what a portal link grants ({@link PortalAccess}, {@link Capability}), the short
 * session a page holds instead of the link's token ({@link PortalSession}), a project's portal branding ({@link
 * PortalSettings}) and what a portal session changed ({@link AuditEntry}). Pure values: the store persists them, the
 * server authorises with them.
 */
package dev.idem.core.portal;
