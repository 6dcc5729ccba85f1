package dev.delayq.test;

import dev.delayq.redisserver.RedisServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The test kit's JUnit 5 extension: {@code @ExtendWith(DelayqExtension.class)} gives each test
 * method that asks for a {@link TestQueue} parameter a queue of its own, on a private
 * redis-server started once per test JVM on a free loopback port ({@code redis-server} from
 * PATH, else the binary embedded-redis ships), or on the server {@code DELAYQ_TEST_REDIS_URL}
 * names. The queue is closed after the test; the server stops with the JVM.
 */
public final class DelayqExtension implements ParameterResolver, AfterEachCallback {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(DelayqExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TestQueue.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    String url = context.getRoot().getStore(NAMESPACE)
        .getOrComputeIfAbsent("redis", k -> new Server(), Server.class).url;
    return context.getStore(NAMESPACE).getOrComputeIfAbsent("queue", k -> TestQueue.open(url), TestQueue.class);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    TestQueue queue = context.getStore(NAMESPACE).remove("queue", TestQueue.class);
    if (queue != null) {
      queue.close();
    }
  }

  /** The test JVM's server, closed by JUnit when the root context ends. */
  private static final class Server implements ExtensionContext.Store.CloseableResource {
    private final RedisServer own;
    private final String url;

    Server() {
      String external = System.getenv("DELAYQ_TEST_REDIS_URL");
      own = external != null && !external.isBlank() ? null : RedisServer.start();
      url = own == null ? external : own.url();
    }

    @Override
    public void close() {
      if (own != null) {
        own.close();
      }
    }
  }
}
