package dev.delayq.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.redis.Keys;
import dev.delayq.spring.DelayqAfterCommitAutoConfiguration;
import dev.delayq.spring.DelayqAutoConfiguration;
import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import redis.clients.jedis.RedisClient;

/** Enqueue after commit, compiled against Spring 6, on Boot 4.0's Spring Framework 7 transactions. */
class AfterCommitBoot4Test {
  private static final RedisServer SERVER = RedisServer.start();
  private static final RedisClient REDIS = RedisClient.create(SERVER.url());

  @AfterAll
  static void stopServer() {
    REDIS.close();
    SERVER.close();
  }

  @Configuration(proxyBeanMethods = false)
  static class Database {
    @Bean(destroyMethod = "shutdown")
    EmbeddedDatabase dataSource() {
      EmbeddedDatabase db = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true).build();
      new JdbcTemplate(db).execute("create table orders (id bigint primary key)");
      return db;
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }
  }

  @Test
  void aCommitSendsTheHeldJobAndARollbackNothingOnBoot4() {
    String queue = "boot4-commit-" + UUID.randomUUID().toString().substring(0, 8);
    Keys keys = new Keys("delayq", queue);
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, DelayqAfterCommitAutoConfiguration.class))
        .withUserConfiguration(Database.class)
        .withPropertyValues("delayq.redis.url=" + SERVER.url(), "delayq.queue.name=" + queue)
        .run(context -> {
          assertThat(context).hasNotFailed();
          DelayQueue q = context.getBean(DelayQueue.class);
          JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
          TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
          EnqueueResult held = tx.execute(s -> {
            jdbc.update("insert into orders (id) values (1)");
            EnqueueResult r = q.delay("order_close", Map.of("order", 1), Duration.ZERO);
            assertThat(REDIS.llen(keys.ready())).isZero();
            return r;
          });
          assertThat(held.pendingCommit()).isTrue();
          assertThat(REDIS.lrange(keys.ready(), 0, -1)).containsExactly(held.id());
          assertThatThrownBy(() -> tx.executeWithoutResult(s -> {
            q.delay("order_close", Map.of("order", 2), Duration.ZERO);
            throw new IllegalStateException("rolled back");
          })).hasMessage("rolled back");
          assertThat(REDIS.lrange(keys.ready(), 0, -1)).containsExactly(held.id());
        });
  }
}
