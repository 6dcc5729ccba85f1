package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.DelayedReads;
import dev.delayq.redis.Keys;
import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import redis.clients.jedis.RedisClient;

/**
 * Enqueue after commit, with a real database engine (H2, embedded) and a real redis-server: an
 * app's transaction inserts its row and enqueues its job; the job goes out at the commit, never
 * with a rollback, and its handler always finds the row.
 */
class EnqueueAfterCommitTest {
  private static final RedisServer SERVER = RedisServer.start();
  private static final RedisClient REDIS = RedisClient.create(SERVER.url());

  private final String queue = "commit-" + UUID.randomUUID().toString().substring(0, 8);
  private final Keys keys = new Keys("delayq", queue);
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class,
          DelayqAfterCommitAutoConfiguration.class))
      .withUserConfiguration(Database.class)
      .withPropertyValues("delayq.redis.url=" + SERVER.url(), "delayq.queue.name=" + queue,
          "delayq.worker.threads=4", "delayq.worker.poll-timeout=100ms");

  @AfterAll
  static void stopServer() {
    REDIS.close();
    SERVER.close();
  }

  /** An embedded H2 with an orders table, its transaction manager, and a handler that reads the rows. */
  @Configuration(proxyBeanMethods = false)
  static class Database {
    @Bean(destroyMethod = "shutdown")
    EmbeddedDatabase dataSource() {
      EmbeddedDatabase db = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
          .generateUniqueName(true).build();
      new JdbcTemplate(db).execute("create table orders (id bigint primary key, job_id varchar(128))");
      return db;
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    OrderClose orderClose(DataSource dataSource) {
      return new OrderClose(new JdbcTemplate(dataSource));
    }
  }

  /** Looks up the order its job names, from another connection, as a worker in the app would. */
  static final class OrderClose implements JobHandler {
    final JdbcTemplate jdbc;
    final Queue<Long> found = new ConcurrentLinkedQueue<>();
    final Queue<Long> missing = new ConcurrentLinkedQueue<>();

    OrderClose(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @Override
    public String type() {
      return "order_close";
    }

    @Override
    public JobResult handle(JobContext job) {
      long order = job.payload().path("order").asLong();
      Integer rows = jdbc.queryForObject("select count(*) from orders where id = ?", Integer.class, order);
      (rows == 1 ? found : missing).add(order);
      return JobResult.done();
    }
  }

  private static void inTransaction(ApplicationContext context, Consumer<JdbcTemplate> work) {
    JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
    new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(s -> work.accept(jdbc));
  }

  private long jobsInRedis() {
    return new DelayedReads(REDIS).count(keys, "-inf", "+inf") + REDIS.llen(keys.ready());
  }

  private static int rows(ApplicationContext context) {
    return new JdbcTemplate(context.getBean(DataSource.class)).queryForObject("select count(*) from orders", Integer.class);
  }

  @Test
  void aCommittedTransactionEnqueuesItsJobOnceAtTheCommit() {
    runner.run(context -> {
      DelayQueue q = context.getBean(DelayQueue.class);
      List<EnqueueResult> results = new ArrayList<>();
      inTransaction(context, jdbc -> {
        EnqueueResult r = q.delay("order_close", Map.of("order", 1001), Duration.ofMinutes(30));
        jdbc.update("insert into orders (id, job_id) values (?, ?)", 1001, r.id());
        results.add(r);
        assertThat(jobsInRedis()).as("sent before the commit").isZero();
      });
      EnqueueResult r = results.get(0);
      assertThat(r.status()).isEqualTo(EnqueueResult.Status.PENDING_COMMIT);
      assertThat(r.pendingCommit()).isTrue();
      assertThat(r.accepted()).isFalse();
      assertThat(r.duplicate()).isFalse();
      assertThat(r.id()).isNotBlank();
      assertThat(jobsInRedis()).isEqualTo(1);
      assertThat(REDIS.hexists(keys.jobs(), r.id())).as("the job has the id the caller stored").isTrue();
    });
  }

  @Test
  void aRolledBackTransactionEnqueuesNothing() {
    runner.run(context -> {
      DelayQueue q = context.getBean(DelayQueue.class);
      assertThatThrownBy(() -> inTransaction(context, jdbc -> {
        jdbc.update("insert into orders (id) values (?)", 1002);
        q.delay("order_close", Map.of("order", 1002), Duration.ZERO);
        q.enqueueAll(List.of(JobRequest.delay("order_close", Map.of("order", 1003), Duration.ZERO)));
        throw new IllegalStateException("payment declined");
      })).hasMessage("payment declined");
      new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(s -> {
        q.delay("order_close", Map.of("order", 1004), Duration.ZERO);
        s.setRollbackOnly();
      });
      assertThat(rows(context)).isZero();
      assertThat(jobsInRedis()).isZero();
    });
  }

  @Test
  void everyJobFindsTheRowItsTransactionInserted() {
    int transactions = 200;
    runner.withPropertyValues("delayq.worker.enabled=true").run(context -> {
      DelayQueue q = context.getBean(DelayQueue.class);
      for (long order = 1; order <= transactions; order++) {
        long o = order;
        inTransaction(context, jdbc -> {
          jdbc.update("insert into orders (id) values (?)", o);
          q.delay("order_close", Map.of("order", o), Duration.ZERO);
          sleep(2);  // the rest of the transaction's work: a job sent now would run before the commit
        });
      }
      OrderClose handler = context.getBean(OrderClose.class);
      await().atMost(30, TimeUnit.SECONDS)
          .until(() -> handler.found.size() + handler.missing.size() == transactions);
      assertThat(handler.missing).as("jobs that ran before their row was committed").isEmpty();
      assertThat(handler.found).doesNotHaveDuplicates().hasSize(transactions);
    });
  }

  @Test
  void severalEnqueuesOfOneTransactionGoOutInTheirOrder() {
    runner.run(context -> {
      DelayQueue q = context.getBean(DelayQueue.class);
      List<String> ids = new ArrayList<>();
      inTransaction(context, jdbc -> {
        ids.add(q.delay("order_close", Map.of("order", 1), Duration.ZERO).id());
        q.enqueueAll(List.of(JobRequest.delay("order_close", Map.of("order", 2), Duration.ZERO),
            JobRequest.delay("order_close", Map.of("order", 3), Duration.ZERO)))
            .forEach(r -> ids.add(r.id()));
        ids.add(q.schedule("order_close", Map.of("order", 4), java.time.Instant.EPOCH).id());
        ids.add(q.delay("order_close", Map.of("order", 5), Duration.ZERO, JobOptions.withId("order-5")).id());
      });
      List<String> ready = new ArrayList<>(REDIS.lrange(keys.ready(), 0, -1));
      Collections.reverse(ready);  // pushed on the left
      assertThat(ready).containsExactlyElementsOf(ids);
      assertThat(ids.get(4)).isEqualTo("order-5");
    });
  }

  @Test
  void outsideATransactionTheEnqueueGoesAtOnce() {
    runner.run(context -> {
      EnqueueResult r = context.getBean(DelayQueue.class).delay("order_close", Map.of("order", 7), Duration.ofMinutes(5));
      assertThat(r.status()).isEqualTo(EnqueueResult.Status.ACCEPTED);
      assertThat(jobsInRedis()).isEqualTo(1);
    });
  }

  @ParameterizedTest
  @ValueSource(strings = {"delayq.producer.afterCommit=false", "delayq.producer.after-commit=false"})
  void withAfterCommitOffTheEnqueueGoesAtOnceInsideATransaction(String property) {
    runner.withPropertyValues(property).run(context -> {
      DelayQueue q = context.getBean(DelayQueue.class);
      inTransaction(context, jdbc -> {
        EnqueueResult r = q.delay("order_close", Map.of("order", 8), Duration.ofMinutes(5));
        assertThat(r.status()).isEqualTo(EnqueueResult.Status.ACCEPTED);
        assertThat(jobsInRedis()).isEqualTo(1);
      });
    });
  }

  @Test
  void anInnerRequiresNewTransactionSendsItsJobsAtItsOwnCommit() {
    runner.run(context -> {
      DelayQueue q = context.getBean(DelayQueue.class);
      PlatformTransactionManager tm = context.getBean(PlatformTransactionManager.class);
      TransactionTemplate requiresNew = new TransactionTemplate(tm);
      requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
      List<String> inner = new ArrayList<>();
      new TransactionTemplate(tm).executeWithoutResult(outer -> {
        q.delay("order_close", Map.of("order", 10), Duration.ZERO);
        requiresNew.executeWithoutResult(s -> inner.add(q.delay("order_close", Map.of("order", 11), Duration.ZERO).id()));
        assertThat(REDIS.lrange(keys.ready(), 0, -1)).as("the inner commit sent its job").containsExactlyElementsOf(inner);
        outer.setRollbackOnly();
      });
      assertThat(REDIS.lrange(keys.ready(), 0, -1)).as("the outer rollback sent nothing").containsExactlyElementsOf(inner);
    });
  }

  @Test
  void aNestedTransactionRolledBackToItsSavepointStillSendsItsJobsAtTheOuterCommit() {
    runner.run(context -> {
      DelayQueue q = context.getBean(DelayQueue.class);
      PlatformTransactionManager tm = context.getBean(PlatformTransactionManager.class);
      TransactionTemplate nested = new TransactionTemplate(tm);
      nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
      List<String> ids = new ArrayList<>();
      inTransaction(context, jdbc -> {
        ids.add(q.delay("order_close", Map.of("order", 12), Duration.ZERO).id());
        nested.executeWithoutResult(s -> {
          ids.add(q.delay("order_close", Map.of("order", 13), Duration.ZERO).id());
          s.setRollbackOnly();
        });
        assertThat(jobsInRedis()).isZero();
      });
      List<String> ready = new ArrayList<>(REDIS.lrange(keys.ready(), 0, -1));
      Collections.reverse(ready);
      assertThat(ready).containsExactlyElementsOf(ids);
    });
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void anEnqueueMadeByAnAfterCommitCallbackGoesOut(boolean heldOneBefore) {
    // an @TransactionalEventListener(phase = AFTER_COMMIT) that enqueues is such a callback
    runner.run(context -> {
      DelayQueue q = context.getBean(DelayQueue.class);
      List<String> ids = new ArrayList<>();
      inTransaction(context, jdbc -> {
        if (heldOneBefore) {
          ids.add(q.delay("order_close", Map.of("order", 20), Duration.ZERO).id());
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
          @Override
          public void afterCommit() {
            ids.add(q.delay("order_close", Map.of("order", 21), Duration.ZERO).id());
          }
        });
      });
      assertThat(REDIS.lrange(keys.ready(), 0, -1)).containsExactlyInAnyOrderElementsOf(ids).hasSize(heldOneBefore ? 2 : 1);
    });
  }

  @Test
  void anEarlierAfterCommitCallbackThatThrowsDoesNotLoseTheJobs() {
    runner.run(context -> {
      DelayQueue q = context.getBean(DelayQueue.class);
      List<String> ids = new ArrayList<>();
      assertThatThrownBy(() -> inTransaction(context, jdbc -> {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
          @Override
          public void afterCommit() {
            throw new IllegalStateException("mail server down");
          }
        });
        ids.add(q.delay("order_close", Map.of("order", 22), Duration.ZERO).id());
      })).hasMessage("mail server down");
      assertThat(REDIS.lrange(keys.ready(), 0, -1)).containsExactlyElementsOf(ids);
    });
  }

  @Test
  void aSendThatFailsAfterTheCommitIsThrownNamingTheJobsAndTheCommitStands() {
    RedisServer doomed = RedisServer.start();
    try {
      runner.withPropertyValues("delayq.redis.url=" + doomed.url(), "delayq.redis.connect-timeout=1s")
          .run(context -> {
            DelayQueue q = context.getBean(DelayQueue.class);
            List<String> ids = new ArrayList<>();
            assertThatThrownBy(() -> inTransaction(context, jdbc -> {
              jdbc.update("insert into orders (id) values (?)", 1005);
              ids.add(q.delay("order_close", Map.of("order", 1005, "card", "4111-secret"), Duration.ZERO).id());
              doomed.kill();
            })).isInstanceOfSatisfying(AfterCommitEnqueueException.class, e -> {
              assertThat(e.jobIds()).isEqualTo(ids);
              assertThat(e.getMessage()).contains(ids.get(0)).contains("order_close")
                  .contains("stays committed").doesNotContain("4111");
            });
            assertThat(rows(context)).as("the commit stands").isEqualTo(1);
          });
    } finally {
      doomed.close();
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
