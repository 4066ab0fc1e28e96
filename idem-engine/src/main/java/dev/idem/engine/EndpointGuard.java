package dev.idem.engine;

import dev.idem.engine.internal.Authority;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Keeps deliveries off the operator's own network (SSRF): endpoints must be {@code http} or {@code https} and
 * may not reach loopback, private (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10), link-local
 * (169.254/16, fe80::/10), unique-local (fc00::/7), multicast, unspecified, reserved or cloud metadata
 * addresses, nor IPv6 forms that embed such an IPv4 address (mapped, compatible, NAT64, 6to4).
 *
 * <p>Checked twice: {@link #refusal(String)} when a schedule is created or changed, and
 * {@link #checkBeforeConnect(URI)} before every attempt, which resolves the host again and checks every
 * address it returns (a name that pointed outside at create time may point inside now: DNS rebinding).
 *
 * <p>The engine's HTTP client also resolves through {@link #resolveForConnect(String)}, so a new connection goes
 * only to addresses checked in that same lookup: a rebinding answer between the check and the connect cannot
 * slip in. Kept-alive connections were checked when first opened, and redirects are never followed.
 *
 * <p>With {@code allowPrivateEndpoints} only the scheme and syntax are checked.
 */
public final class EndpointGuard {
    /** Host names of cloud metadata services, refused without resolving them. */
    private static final Set<String> METADATA_HOSTS = Set.of(
            "metadata.google.internal",
            "metadata.goog",
            "metadata",
            "instance-data",
            "instance-data.ec2.internal",
            "metadata.azure.internal",
            "metadata.tencentyun.com",
            "metadata.platformequinix.com");

    /** Resolves a host name to every address it has; injectable so tests can play DNS. */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;

        Resolver SYSTEM = InetAddress::getAllByName;
    }

    /** Thrown by {@link #checkBeforeConnect} when an endpoint is refused; the message says why. */
    public static final class EndpointRefusedException extends Exception {
        private static final long serialVersionUID = 1L;

        public EndpointRefusedException(String message) {
            super(message);
        }
    }

    private final boolean allowPrivate;
    private final Resolver resolver;

    private EndpointGuard(boolean allowPrivate, Resolver resolver) {
        this.allowPrivate = allowPrivate;
        this.resolver = resolver;
    }

    /** A guard resolving with the system resolver. */
    public static EndpointGuard of(boolean allowPrivateEndpoints) {
        return new EndpointGuard(allowPrivateEndpoints, Resolver.SYSTEM);
    }

    /** A guard resolving with {@code resolver} (tests). */
    public static EndpointGuard of(boolean allowPrivateEndpoints, Resolver resolver) {
        return new EndpointGuard(allowPrivateEndpoints, java.util.Objects.requireNonNull(resolver, "resolver"));
    }

    /** Whether this guard lets internal addresses through (it still checks scheme and syntax). */
    public boolean allowsPrivateEndpoints() {
        return allowPrivate;
    }

    /**
     * The create-time check. Returns empty when the endpoint is acceptable, else a sentence for the API user
     * saying what is wrong. A host name that does not resolve now is accepted (it may exist by the time a
     * delivery is due; the connect-time check decides then); one that resolves is refused if any of its
     * addresses is.
     */
    public Optional<String> refusal(String endpoint) {
        URI uri;
        try {
            uri = parse(endpoint);
        } catch (EndpointRefusedException e) {
            return Optional.of(e.getMessage());
        }
        if (allowPrivate) return Optional.empty();
        String host = bareHost(uri);
        Optional<String> byName = refusedName(host);
        if (byName.isPresent()) return byName;
        try {
            return refusedAddresses(host, resolver.resolve(host));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    /**
     * The connect-time check: parses the endpoint, resolves its host now and checks every address.
     *
     * @return the parsed endpoint
     * @throws EndpointRefusedException when it is refused or the host does not resolve (a failed attempt,
     *     retried like any connection error)
     */
    public URI checkBeforeConnect(String endpoint) throws EndpointRefusedException {
        URI uri = parse(endpoint);
        checkBeforeConnect(uri);
        return uri;
    }

    /** As {@link #checkBeforeConnect(String)} for an already parsed endpoint. */
    public void checkBeforeConnect(URI uri) throws EndpointRefusedException {
        if (allowPrivate) return;
        String host = bareHost(uri);
        Optional<String> refused = refusedName(host);
        if (refused.isEmpty()) {
            try {
                refused = refusedAddresses(host, resolver.resolve(host));
            } catch (UnknownHostException e) {
                throw new EndpointRefusedException("host '" + host + "' does not resolve");
            }
        }
        if (refused.isPresent()) throw new EndpointRefusedException(refused.get());
    }

    /**
     * Resolves {@code host} for a new connection and returns its addresses only if every one is acceptable: the
     * addresses checked are the addresses connected to. Throws {@link RefusedHostException} (an
     * {@link UnknownHostException}, as HTTP clients expect from a resolver) when the host is refused.
     */
    public InetAddress[] resolveForConnect(String host) throws UnknownHostException {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (allowPrivate) return resolver.resolve(bare);
        String name = bare.toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) name = name.substring(0, name.length() - 1);
        Optional<String> refused = refusedName(name);
        if (refused.isPresent()) throw new RefusedHostException(refused.get());
        InetAddress[] addresses = resolver.resolve(bare);
        refused = refusedAddresses(name, addresses);
        if (refused.isPresent()) throw new RefusedHostException(refused.get());
        return addresses;
    }

    /** A host {@link #resolveForConnect} refuses; the message says why. */
    public static final class RefusedHostException extends UnknownHostException {
        private static final long serialVersionUID = 1L;

        public RefusedHostException(String message) {
            super(message);
        }
    }

    /**
     * Why an address is refused ({@code "loopback"}, {@code "a private network"}, …), or empty when it is a
     * public address. Independent of {@code allowPrivateEndpoints}.
     */
    public static Optional<String> classify(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) return classifyV4(b);
        if (address instanceof Inet6Address) return classifyV6(b);
        return Optional.of("an unknown address family");
    }

    /**
     * Why {@code endpoint} is not a usable http(s) URL, whatever the network it points at: a syntax error, another
     * scheme, no host, credentials, a port outside 1..65535, empty or with a leading zero, an IPv4 address not written
     * as four decimal numbers ({@code 127.1}, {@code 0x7f000001}), or an IPv6 zone id
     * ({@code [fe80::1%25eth0]}). Empty
     * when it is well formed. Independent of {@code allowPrivateEndpoints}; {@link #refusal} and
     * {@link #checkBeforeConnect} include this check.
     */
    public static Optional<String> syntaxError(String endpoint) {
        try {
            parse(endpoint);
            return Optional.empty();
        } catch (EndpointRefusedException e) {
            return Optional.of(e.getMessage());
        }
    }

    private static URI parse(String endpoint) throws EndpointRefusedException {
        if (endpoint == null || endpoint.isBlank())
            throw new EndpointRefusedException("endpoint is empty: give an http(s) URL");
        URI uri;
        try {
            uri = new URI(endpoint);
        } catch (URISyntaxException e) {
            throw new EndpointRefusedException("endpoint is not a valid URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https"))
            throw new EndpointRefusedException("endpoint must be an http or https URL, got scheme '" + scheme + "'");
        String authority = uri.getRawAuthority();
        if (authority != null) {
            // what java.net.URI reads loosely or as "no host": 127.1, 0x7f000001, h:, h:019001
            String numeric = Authority.nonCanonicalIpv4(Authority.host(authority));
            if (numeric != null) throw new EndpointRefusedException(numeric);
            String port = Authority.portProblem(authority);
            if (port != null) throw new EndpointRefusedException(port);
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            // java.net.URI reads "host:99999999999" as a registry authority with no host rather than a bad port
            if (authority != null && authority.matches(".*:[0-9]+") && !authority.contains("@"))
                throw new EndpointRefusedException(portText(authority.substring(authority.lastIndexOf(':') + 1)));
            throw new EndpointRefusedException(
                    "endpoint has no host name: give a URL such as https://example.com/hook");
        }
        if (uri.getRawUserInfo() != null)
            throw new EndpointRefusedException(
                    "endpoint must not carry credentials before the host: send them in 'headers'");
        // -1 is "no port given" (the scheme's default); 0 would connect to the default port, 65536 and up to nothing
        if (uri.getPort() == 0 || uri.getPort() > 65535)
            throw new EndpointRefusedException(portText(Integer.toString(uri.getPort())));
        // a zone id names a network interface of the sending machine: meaningless to a service of several nodes,
        // refused by the WHATWG URL standard, and a way around the address checks (fe80::1%25eth0 is link-local)
        if (uri.getHost().indexOf('%') >= 0)
            throw new EndpointRefusedException("endpoint host '" + uri.getHost()
                    + "' carries an IPv6 zone id (%…): give a routable address or a host name");
        return uri;
    }

    private static String portText(String port) {
        return "endpoint port must be between 1 and 65535, got " + port;
    }

    private static String bareHost(URI uri) {
        String h = uri.getHost();
        if (h.startsWith("[") && h.endsWith("]")) h = h.substring(1, h.length() - 1);
        h = h.toLowerCase(Locale.ROOT);
        return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
    }

    private static Optional<String> refusedName(String host) {
        if (host.equals("localhost") || host.endsWith(".localhost"))
            return Optional.of(refusedText(host, "is loopback"));
        if (METADATA_HOSTS.contains(host)) return Optional.of(refusedText(host, "is a cloud metadata service"));
        return Optional.empty();
    }

    private static Optional<String> refusedAddresses(String host, InetAddress[] addresses) {
        for (InetAddress a : addresses) {
            Optional<String> why = classify(a);
            if (why.isPresent()) {
                String shown = a.getHostAddress();
                boolean literal = shown.equalsIgnoreCase(host) || isLiteral(host);
                return Optional.of(
                        literal
                                ? refusedText(host, "is " + why.get())
                                : refusedText(host, "resolves to " + shown + ", which is " + why.get()));
            }
        }
        return Optional.empty();
    }

    private static boolean isLiteral(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }

    private static String refusedText(String host, String why) {
        return "endpoint host '" + host + "' " + why
                + ": deliveries to internal networks are refused unless the server runs with --allow-private-endpoints";
    }

    private static Optional<String> classifyV4(byte[] b) {
        int a0 = b[0] & 0xff, a1 = b[1] & 0xff, a2 = b[2] & 0xff, a3 = b[3] & 0xff;
        if (a0 == 169 && a1 == 254 && a2 == 169 && a3 == 254) return Optional.of("a cloud metadata address");
        if (a0 == 100 && a1 == 100 && a2 == 100 && a3 == 200) return Optional.of("a cloud metadata address");
        if (a0 == 192 && a1 == 0 && a2 == 0 && a3 == 192) return Optional.of("a cloud metadata address");
        if (a0 == 0 && a1 == 0 && a2 == 0 && a3 == 0) return Optional.of("the unspecified address");
        if (a0 == 0) return Optional.of("a reserved address (0.0.0.0/8)");
        if (a0 == 127) return Optional.of("loopback");
        if (a0 == 10) return Optional.of("a private network address (10.0.0.0/8)");
        if (a0 == 172 && (a1 & 0xf0) == 16) return Optional.of("a private network address (172.16.0.0/12)");
        if (a0 == 192 && a1 == 168) return Optional.of("a private network address (192.168.0.0/16)");
        if (a0 == 169 && a1 == 254) return Optional.of("link-local");
        if (a0 == 100 && (a1 & 0xc0) == 64) return Optional.of("a carrier-grade NAT address (100.64.0.0/10)");
        if (a0 == 192 && a1 == 0 && a2 == 0) return Optional.of("a reserved address (192.0.0.0/24)");
        if (a0 == 198 && (a1 & 0xfe) == 18) return Optional.of("a reserved address (198.18.0.0/15)");
        if (a0 >= 224 && a0 <= 239) return Optional.of("multicast");
        if (a0 >= 240) return Optional.of("a reserved address (240.0.0.0/4)");
        return Optional.empty();
    }

    private static Optional<String> classifyV6(byte[] b) {
        if (isZero(b, 0, 16)) return Optional.of("the unspecified address");
        if (isZero(b, 0, 15) && b[15] == 1) return Optional.of("loopback");
        // fd00:ec2::254, the AWS metadata service over IPv6
        if ((b[0] & 0xff) == 0xfd
                && b[1] == 0
                && (b[2] & 0xff) == 0x0e
                && (b[3] & 0xff) == 0xc2
                && isZero(b, 4, 14)
                && b[14] == 0x02
                && (b[15] & 0xff) == 0x54) return Optional.of("a cloud metadata address");
        if ((b[0] & 0xff) == 0xff) return Optional.of("multicast");
        if ((b[0] & 0xfe) == 0xfc) return Optional.of("a unique-local address (fc00::/7)");
        if ((b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0x80) return Optional.of("link-local");
        if ((b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0xc0) return Optional.of("a site-local address (fec0::/10)");
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) carry an IPv4 address
        if (isZero(b, 0, 10) && (((b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) || (b[10] == 0 && b[11] == 0)))
            return embedded(b, 12);
        // 64:ff9b::/96 (NAT64) embeds an IPv4 address in its last 32 bits
        if (b[0] == 0 && b[1] == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b && isZero(b, 4, 12))
            return embedded(b, 12);
        // 2002::/16 (6to4) embeds one in bits 16..47
        if (b[0] == 0x20 && b[1] == 0x02) return embedded(b, 2);
        return Optional.empty();
    }

    private static Optional<String> embedded(byte[] b, int at) {
        byte[] v4 = {b[at], b[at + 1], b[at + 2], b[at + 3]};
        return classifyV4(v4).map(why -> "an IPv6 form of an IPv4 address that is " + why);
    }

    private static boolean isZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) if (b[i] != 0) return false;
        return true;
    }
}
