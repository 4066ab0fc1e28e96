package dev.idem.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTaskWithPersistentSchedule;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.PersistentCronSchedule;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.wire.SigningSecret;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The peer: db-scheduler (version in the module pom) on its own PostgreSQL database, tuned as DESIGN.md measured
 * it: lock-and-fetch polling, 64 threads, a pool of 32 connections, 100 ms polling, immediate execution. Each
 * delivery is a one-time task whose handler POSTs the same signed envelope Idem sends to the same receiver and
 * fails on a non-2xx (so db-scheduler retries it). It runs twice: its tasks sending with the JDK's HttpClient (what
 * a hand-rolled sender reaches for), and with Apache HttpClient 5 as Idem sends (the schedulers alone compared). Outcomes count as recorded when the scheduler's listener sees
 * a successful completion, which db-scheduler reports after its completion handler removed the row. With
 * {@code --nodes N} it runs N schedulers on the one database, each with its own pool, name and listener, the same
 * tasks and settings; the first one writes.
 */
final class DbSchedulerContender extends Contender {
    static final int THREADS = 64;
    static final int POOL = 32;
    static final Duration POLLING = Duration.ofMillis(100);

    private final Postgres postgres;
    private final String database;
    /** The first node's pool and scheduler: they write the instances and read the queue. */
    private final HikariDataSource pool;

    private final Scheduler scheduler;
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final List<Scheduler> schedulers = new ArrayList<>();
    /** Successful completions, by node. */
    private final List<AtomicLong> succeeded = new ArrayList<>();

    private final OneTimeTask<Void> task;
    private final RecurringTaskWithPersistentSchedule<PersistentCronSchedule> cronTask;
    private final SignedPost post;
    private final SigningSecret secretForPosts;
    /** The client of each endpoint a run writes to, by run label (a task instance's id carries its run's label). */
    private final java.util.Map<String, SignedPost> posts = new java.util.concurrent.ConcurrentHashMap<>();

    private final SigningSecret secret = SigningSecret.generate(new SecureRandom());

    /** The contender's name for each HTTP client its tasks send with. */
    static String name(SignedPost.Http http) {
        return http == SignedPost.Http.JDK ? "db-scheduler" : "db-scheduler+apache";
    }

    /** Its database, beside Idem's. */
    static String database(BenchOptions options, SignedPost.Http http) {
        return options.dbPrefix() + (http == SignedPost.Http.JDK ? "_dbs" : "_dbsa");
    }

    DbSchedulerContender(BenchOptions options, Receiver receiver, Postgres postgres, SignedPost.Http http)
            throws Exception {
        super(options, receiver);
        this.postgres = postgres;
        this.database = database(options, http);
        postgres.recreate(database);
        postgres.execute(
                database,
                """
                CREATE TABLE scheduled_tasks (
                  task_name text NOT NULL,
                  task_instance text NOT NULL,
                  task_data bytea,
                  execution_time timestamp with time zone NOT NULL,
                  picked BOOLEAN NOT NULL,
                  picked_by text,
                  last_success timestamp with time zone,
                  last_failure timestamp with time zone,
                  consecutive_failures INT,
                  last_heartbeat timestamp with time zone,
                  version BIGINT NOT NULL,
                  priority SMALLINT,
                  PRIMARY KEY (task_name, task_instance))""",
                "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
                "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
                "CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)");
        post = new SignedPost(receiver.url(), secret, http);
        secretForPosts = secret;
        task = Tasks.oneTime("webhook")
                .execute((instance, ctx) -> send(instance.getId(), ctx.getExecution().executionTime));
        cronTask = Tasks.recurringWithPersistentSchedule("cron-webhook", PersistentCronSchedule.class)
                .execute((instance, ctx) -> send(
                        instance.getId() + "@"
                                + ctx.getExecution().executionTime.toEpochMilli(),
                        ctx.getExecution().executionTime));
        try {
            for (int node = 0; node < options.nodes(); node++) {
                HikariDataSource p = new HikariDataSource(pool(options, postgres.url(database), http, node));
                pools.add(p);
                AtomicLong ok = new AtomicLong();
                succeeded.add(ok);
                Scheduler s = Scheduler.create(p, task, cronTask)
                        .schedulerName(new SchedulerName.Fixed(name(http) + "-" + node))
                        .threads(THREADS)
                        .pollingInterval(POLLING)
                        .enableImmediateExecution()
                        .pollUsingLockAndFetch(0.5, 1.0)
                        .addSchedulerListener(new AbstractSchedulerListener() {
                            @Override
                            public void onExecutionComplete(ExecutionComplete complete) {
                                if (complete.getResult() == ExecutionComplete.Result.OK) ok.incrementAndGet();
                            }
                        })
                        .build();
                schedulers.add(s);
                s.start();
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        pool = pools.get(0);
        scheduler = schedulers.get(0);
    }

    /**
     * One node's pool: {@value #POOL} connections at most, as db-scheduler was tuned. With several nodes each keeps
     * only 2 open while idle (as Idem's store does) rather than 32, so that the contenders' idle pools fit in
     * PostgreSQL's default 100 connections; one node keeps HikariCP's default (all 32 open), as every earlier run.
     */
    private static HikariConfig pool(BenchOptions options, String url, SignedPost.Http http, int node) {
        HikariConfig h = new HikariConfig();
        h.setPoolName(name(http) + "-" + node);
        h.setJdbcUrl(url);
        if (options.user() != null) h.setUsername(options.user());
        if (options.password() != null) h.setPassword(options.password());
        h.setMaximumPoolSize(POOL);
        if (options.nodes() > 1) h.setMinimumIdle(2);
        return h;
    }

    /** The task body: the signed POST, failing on a non-2xx so db-scheduler retries. */
    private void send(String id, Instant due) {
        int status;
        try {
            // a run written to another receiver (the slow or hanging phases)
            // is named in the instance id: dlv_<label>_<i>
            SignedPost to = id.startsWith("dlv_") && id.lastIndexOf('_') > 3
                    ? posts.getOrDefault(id.substring("dlv_".length(), id.lastIndexOf('_')), post)
                    : post;
            status = to.send(id, due);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("request failed: " + e, e);
        }
        if (status / 100 != 2) throw new IllegalStateException("HTTP " + status);
    }

    /**
     * {@code n} recurring instances on one cron rule (db-scheduler's 6-field cron, UTC), written with {@code scheduleBatch}
     * in chunks: its equivalent of n cron schedules. Each execution is posted with id {@code <instance>@<epoch ms>}.
     */
    void writeCron(String label, int n, String cron) {
        for (int from = 0; from < n; from += WRITE_CHUNK) {
            List<SchedulableInstance<?>> batch = new ArrayList<>();
            for (int i = from; i < Math.min(n, from + WRITE_CHUNK); i++)
                batch.add(cronTask.schedulableInstance(
                        "cron_" + label + "_" + i, new PersistentCronSchedule(cron, java.time.ZoneOffset.UTC)));
            scheduler.scheduleBatch(batch);
        }
    }

    @Override
    String name() {
        return name(post.http());
    }

    @Override
    SigningSecret secret() {
        return secret;
    }

    @Override
    void write(String label, String endpoint, int from, int to, IntFunction<Instant> due) {
        if (!endpoint.equals(receiver.url()))
            posts.computeIfAbsent(label, l -> new SignedPost(endpoint, secretForPosts, post.http()));
        // one JDBC batch per chunk, each instance with its own due instant
        List<SchedulableInstance<?>> batch = new ArrayList<>(to - from);
        for (int i = from; i < to; i++)
            batch.add(SchedulableInstance.of(task.instance("dlv_" + label + "_" + i), due.apply(i)));
        scheduler.scheduleBatch(batch);
    }

    @Override
    long[] completedByNode() {
        return succeeded.stream().mapToLong(AtomicLong::get).toArray();
    }

    @Override
    long pending() throws Exception {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM scheduled_tasks")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    long purge() throws Exception {
        return postgres.update(database, "DELETE FROM scheduled_tasks WHERE NOT picked");
    }

    @Override
    void between() throws Exception {
        postgres.execute(database, "VACUUM ANALYZE scheduled_tasks");
    }

    @Override
    public void close() {
        schedulers.forEach(Scheduler::stop);
        post.close();
        posts.values().forEach(SignedPost::close);
        pools.forEach(HikariDataSource::close);
    }
}
