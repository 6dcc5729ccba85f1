package dev.delayq.supervisor.web;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a slow or half-sent request may hold of the web port, set on the JDK's HttpServer.
 *
 * <p>That server reads a request's line and headers on its executor's threads, blocking, and by
 * default waits for them for ever: four connections that never finish their headers took all four
 * threads the port had, and /metrics with them. So the reading is given a deadline and its own
 * threads. A request must arrive whole, headers and body, within {@link #REQUEST_SECONDS} of its
 * first byte, and an answer be taken within {@link #RESPONSE_SECONDS}, or its connection is closed
 * (the JDK's {@code sun.net.httpserver.maxReqTime} and {@code maxRspTime}, checked every second);
 * a connection that sends nothing is closed as soon. The port holds at most
 * {@link #MAX_CONNECTIONS} connections ({@code jdk.httpserver.maxConnections}; the JDK closes one
 * more at once) with headers of at most {@link #MAX_HEADER_BYTES} each, and each connection that
 * is reading a request has a thread of its own ({@link #readers}), so slow clients cost a thread
 * and a few KB each, never the threads that answer. The answering itself is bounded apart
 * ({@link HandlerPermits}).
 *
 * <p>The JDK reads these properties once, when its first server is made; one that the operator set
 * on the supervisor's JVM (DELAYQ_SUPERVISOR_OPTS) is kept.
 */
final class SlowClientLimits {
  static final int REQUEST_SECONDS = 5;
  static final int RESPONSE_SECONDS = 30;
  static final int MAX_CONNECTIONS = 128;
  static final int MAX_HEADER_BYTES = 64 * 1024;

  private SlowClientLimits() {}

  /** Sets the JDK server's limits, before its first server is made. */
  static void apply() {
    setUnlessSet("sun.net.httpserver.maxReqTime", Integer.toString(REQUEST_SECONDS));
    setUnlessSet("sun.net.httpserver.maxRspTime", Integer.toString(RESPONSE_SECONDS));
    // how often the deadlines are checked (ms)
    setUnlessSet("sun.net.httpserver.timerMillis", "1000");
    // how often idle connections, and new ones that sent nothing, are looked at (ms; 10 s by default)
    setUnlessSet("sun.net.httpserver.clockTick", "1000");
    setUnlessSet("jdk.httpserver.maxConnections", Integer.toString(MAX_CONNECTIONS));
    setUnlessSet("sun.net.httpserver.maxReqHeaderSize", Integer.toString(MAX_HEADER_BYTES));
  }

  private static void setUnlessSet(String name, String value) {
    if (System.getProperty(name) == null) {
      System.setProperty(name, value);
    }
  }

  /**
   * The threads that read requests and run the handlers: one per connection with a request under
   * way (as many as the port holds connections, and a few for those the JDK has closed while their
   * thread ends), made when needed and ended after 30 s unused; no queue, since every connection
   * may be waiting for its headers at once. (A request past them is refused: the JDK closes its
   * connection.)
   */
  static ExecutorService readers() {
    AtomicInteger n = new AtomicInteger();
    int connections = Integer.getInteger("jdk.httpserver.maxConnections", MAX_CONNECTIONS);
    return new ThreadPoolExecutor(0, connections + HandlerPermits.PERMITS, 30, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, "web-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }
}
