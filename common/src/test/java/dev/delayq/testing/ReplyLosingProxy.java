package dev.delayq.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy on a free loopback port in front of a real Redis, which passes everything through
 * until told to lose one call: the next request that holds a given command either reaches Redis
 * and runs there while its reply is thrown away ({@link Loss#REPLY}), or never reaches Redis
 * ({@link Loss#REQUEST}); either way the client's connection is then closed, so the client sees
 * its connection broken after it sent the call. Not a Redis mock: every byte that passes is
 * Redis's own. What a test wants done while the client waits (a take-back, say) runs before the
 * connection is closed.
 */
public final class ReplyLosingProxy implements AutoCloseable {
  /** What of the trapped call is lost. */
  public enum Loss {
    /** The request runs on Redis; its reply never reaches the client. */
    REPLY,
    /** The request never reaches Redis. */
    REQUEST
  }

  private record Trap(Loss loss, byte[] command, Runnable meanwhile) {}

  private final ServerSocket server;
  private final int redisPort;
  private final AtomicReference<Trap> armed = new AtomicReference<>();
  private final AtomicInteger sprung = new AtomicInteger();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  private ReplyLosingProxy(int redisPort) throws IOException {
    this.redisPort = redisPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptAll, "reply-losing-proxy");
    accept.setDaemon(true);
    accept.start();
  }

  /** A proxy in front of the Redis on loopback port {@code redisPort}. */
  public static ReplyLosingProxy to(int redisPort) throws IOException {
    return new ReplyLosingProxy(redisPort);
  }

  /** The URL a client connects to, to reach Redis through this proxy. */
  public String url() {
    return "redis://127.0.0.1:" + server.getLocalPort();
  }

  /**
   * Loses {@code loss} of the next request that holds {@code command} (say EVALSHA), after running
   * {@code meanwhile}: for REPLY once Redis has answered, for REQUEST instead of sending it.
   */
  public void loseNext(Loss loss, String command, Runnable meanwhile) {
    armed.set(new Trap(loss, command.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII), meanwhile));
  }

  /** How many calls were lost so far. */
  public int lost() {
    return sprung.get();
  }

  private void acceptAll() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket redis = new Socket(InetAddress.getLoopbackAddress(), redisPort);
        sockets.add(client);
        sockets.add(redis);
        AtomicReference<Trap> doomed = new AtomicReference<>();
        pump("proxy-up", () -> up(client, redis, doomed));
        pump("proxy-down", () -> down(redis, client, doomed));
      } catch (IOException e) {
        if (!closed) {
          throw new IllegalStateException("the proxy could not accept or reach Redis", e);
        }
      }
    }
  }

  private static void pump(String name, ThrowingRunnable body) {
    Thread t = new Thread(() -> {
      try {
        body.run();
      } catch (IOException e) {
        // a side closed: the pump ends with its connection
      }
    }, name);
    t.setDaemon(true);
    t.start();
  }

  private interface ThrowingRunnable {
    void run() throws IOException;
  }

  /** Client to Redis: a trapped request is dropped (REQUEST) or sent with its connection doomed (REPLY). */
  private void up(Socket client, Socket redis, AtomicReference<Trap> doomed) throws IOException {
    InputStream in = client.getInputStream();
    OutputStream out = redis.getOutputStream();
    byte[] buf = new byte[64 * 1024];
    for (int n; (n = in.read(buf)) > 0; ) {
      Trap trap = armed.get();
      if (trap != null && holds(buf, n, trap.command()) && armed.compareAndSet(trap, null)) {
        if (trap.loss() == Loss.REQUEST) {
          trap.meanwhile().run();
          sprung.incrementAndGet();
          closeBoth(client, redis);
          return;
        }
        doomed.set(trap); // set before the request goes: its reply is the next Redis sends
      }
      out.write(buf, 0, n);
      out.flush();
    }
    closeBoth(client, redis);
  }

  /** Redis to client: on a doomed connection the reply is thrown away and the connection closed. */
  private void down(Socket redis, Socket client, AtomicReference<Trap> doomed) throws IOException {
    InputStream in = redis.getInputStream();
    OutputStream out = client.getOutputStream();
    byte[] buf = new byte[64 * 1024];
    for (int n; (n = in.read(buf)) > 0; ) {
      Trap trap = doomed.get();
      if (trap != null) {
        trap.meanwhile().run();
        sprung.incrementAndGet();
        closeBoth(client, redis);
        return;
      }
      out.write(buf, 0, n);
      out.flush();
    }
    closeBoth(client, redis);
  }

  /** True when the first {@code n} bytes of {@code buf} hold {@code what}, ASCII letters in any case. */
  private static boolean holds(byte[] buf, int n, byte[] what) {
    for (int i = 0; i + what.length <= n; i++) {
      int k = 0;
      while (k < what.length && Character.toUpperCase(buf[i + k]) == what[k]) {
        k++;
      }
      if (k == what.length) {
        return true;
      }
    }
    return false;
  }

  private static void closeBoth(Socket a, Socket b) {
    try {
      a.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    try {
      b.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
