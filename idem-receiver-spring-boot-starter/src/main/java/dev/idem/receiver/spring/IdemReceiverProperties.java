package dev.idem.receiver.spring;

import dev.idem.receiver.VerifierMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code idem.receiver.*}: how webhooks are verified, deduplicated and remembered. The Javadoc of each field is
 * the property's description in {@code META-INF/spring-configuration-metadata.json}, which
 * spring-boot-configuration-processor writes at build time (IDE completion and help).
 */
@ConfigurationProperties("idem.receiver")
public class IdemReceiverProperties {
    /** Whether the receiver is configured at all. */
    private boolean enabled = true;
    /** Signature scheme: standard-webhooks (Idem, Svix), stripe or github. */
    private VerifierMode mode = VerifierMode.STANDARD_WEBHOOKS;
    /** Signing secrets; several during a rotation. Required. */
    private List<String> secrets = new ArrayList<>();
    /** Timestamp tolerance, both ways (ignored for GitHub, which signs no timestamp). */
    private Duration tolerance = Duration.ofMinutes(5);
    /** URL patterns the filter guards. */
    private List<String> urlPatterns = new ArrayList<>(List.of("/webhooks/*"));
    /** A header to take the dedup key from before Idempotency-Key and webhook-id. */
    private String keyHeader;
    /** A JSON field (dotted path) to take the dedup key from before Idempotency-Key and webhook-id. */
    private String keyJsonField;
    /** Keep each first response body and answer duplicates with it. */
    private boolean storeResponses = false;
    /** Larger request bodies get 413. */
    private int maxBodyBytes = 1_048_576;
    /** Run handlers inside the claiming transaction; default: yes over a JDBC inbox. */
    private Boolean transactional;
    /** How long processed keys are remembered. */
    private Duration dedupWindow = Duration.ofDays(3);
    /** The longest time after a first attempt that the sender may still redeliver (Idem: retry.max_age). */
    private Duration senderRetryHorizon = Duration.ofHours(24);
    /** How often the pruner runs; 0 turns it off. */
    private Duration pruneInterval = Duration.ofMinutes(10);
    /** Where processed keys are remembered. */
    private final Inbox inbox = new Inbox();

    /** {@code idem.receiver.inbox.*}. */
    public static class Inbox {
        /** auto (JDBC when there is a DataSource, else Redis when redis-url is set, else memory), jdbc, redis, memory. */
        private String type = "auto";
        /** The JDBC inbox table. */
        private String table = "idem_inbox";
        /** Create the table at startup if absent. */
        private boolean createTable = true;
        /** How long a claim → work → mark claim lives before another worker may take the key over. */
        private Duration claimLease = Duration.ofMinutes(2);
        /** redis://host:port for a Redis inbox. */
        private String redisUrl;
        /** Prefix of every Redis key. */
        private String redisPrefix = "idem:inbox:";

        public String getType() {
            return type;
        }

        public void setType(String type) {
            this.type = type;
        }

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public boolean isCreateTable() {
            return createTable;
        }

        public void setCreateTable(boolean createTable) {
            this.createTable = createTable;
        }

        public Duration getClaimLease() {
            return claimLease;
        }

        public void setClaimLease(Duration claimLease) {
            this.claimLease = claimLease;
        }

        public String getRedisUrl() {
            return redisUrl;
        }

        public void setRedisUrl(String redisUrl) {
            this.redisUrl = redisUrl;
        }

        public String getRedisPrefix() {
            return redisPrefix;
        }

        public void setRedisPrefix(String redisPrefix) {
            this.redisPrefix = redisPrefix;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public VerifierMode getMode() {
        return mode;
    }

    public void setMode(VerifierMode mode) {
        this.mode = mode;
    }

    public List<String> getSecrets() {
        return secrets;
    }

    public void setSecrets(List<String> secrets) {
        this.secrets = secrets;
    }

    public Duration getTolerance() {
        return tolerance;
    }

    public void setTolerance(Duration tolerance) {
        this.tolerance = tolerance;
    }

    public List<String> getUrlPatterns() {
        return urlPatterns;
    }

    public void setUrlPatterns(List<String> urlPatterns) {
        this.urlPatterns = urlPatterns;
    }

    public String getKeyHeader() {
        return keyHeader;
    }

    public void setKeyHeader(String keyHeader) {
        this.keyHeader = keyHeader;
    }

    public String getKeyJsonField() {
        return keyJsonField;
    }

    public void setKeyJsonField(String keyJsonField) {
        this.keyJsonField = keyJsonField;
    }

    public boolean isStoreResponses() {
        return storeResponses;
    }

    public void setStoreResponses(boolean storeResponses) {
        this.storeResponses = storeResponses;
    }

    public int getMaxBodyBytes() {
        return maxBodyBytes;
    }

    public void setMaxBodyBytes(int maxBodyBytes) {
        this.maxBodyBytes = maxBodyBytes;
    }

    public Boolean getTransactional() {
        return transactional;
    }

    public void setTransactional(Boolean transactional) {
        this.transactional = transactional;
    }

    public Duration getDedupWindow() {
        return dedupWindow;
    }

    public void setDedupWindow(Duration dedupWindow) {
        this.dedupWindow = dedupWindow;
    }

    public Duration getSenderRetryHorizon() {
        return senderRetryHorizon;
    }

    public void setSenderRetryHorizon(Duration senderRetryHorizon) {
        this.senderRetryHorizon = senderRetryHorizon;
    }

    public Duration getPruneInterval() {
        return pruneInterval;
    }

    public void setPruneInterval(Duration pruneInterval) {
        this.pruneInterval = pruneInterval;
    }

    public Inbox getInbox() {
        return inbox;
    }
}
