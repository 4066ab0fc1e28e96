package dev.idem.receiver;

import java.time.Duration;
import redis.clients.jedis.JedisPooled;

/** A worker in its own JVM that claims a key, starts the work and hangs there until it is killed. */
public final class ChildWorker {
    private ChildWorker() {}

    /** Arguments: store spec ({@code jdbc:…} or {@code redis:<prefix>}), key, lease in ms. */
    public static void main(String[] args) throws Exception {
        String spec = args[0];
        Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
        Inbox inbox = spec.startsWith("redis:")
                ? new RedisInbox(
                        new JedisPooled(TestDatabases.REDIS_URL),
                        spec.substring("redis:".length()),
                        lease,
                        DedupWindow.defaults())
                : JdbcInbox.builder(new TestDatabases.Pool(spec, 1))
                        .table(args.length > 3 ? args[3] : "idem_inbox")
                        .build();
        inbox.execute(args[1], lease, () -> {
            System.out.println("WORKING " + args[1]);
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
            return "unreachable";
        });
    }
}
