package dev.delayq.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * TLS sockets that finish their handshake before Jedis sends a command, within a time of their
 * own. Left to Jedis, the handshake runs inside the first command and waits the socket's read
 * timeout, retried by the pool: a {@code rediss://} URL on a plain Redis port sat 20 s in "Read
 * timed out", since a plain server reads the ClientHello as the start of an inline command and
 * waits for the rest. Here it fails after {@code handshakeTimeout} saying the port does not
 * speak TLS.
 */
final class HandshakeFirstSockets extends SSLSocketFactory {
  /** Words {@link RedisErrors#explainTls} looks for. */
  static final String NO_TLS = "does not speak TLS";

  /** One daemon thread for every connection's handshake deadline. */
  private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "delayq-tls-handshake-deadline");
    t.setDaemon(true);
    return t;
  });

  private final SSLSocketFactory delegate;
  private final SSLParameters parameters;
  private final int handshakeMillis;
  /**
   * host:port → until when (System.nanoTime) a handshake is not tried again there: it just timed
   * out. Shared by every connection of this JVM: a fact about the address, not about one pool.
   */
  private static final Map<String, Long> SILENT = new ConcurrentHashMap<>();

  HandshakeFirstSockets(SSLSocketFactory delegate, SSLParameters parameters, Duration handshakeTimeout) {
    this.delegate = delegate;
    this.parameters = parameters;
    this.handshakeMillis = (int) Math.max(1, handshakeTimeout.toMillis());
  }

  @Override
  public Socket createSocket(Socket plain, String host, int port, boolean autoClose) throws IOException {
    String address = host + ":" + port;
    Long silentUntil = SILENT.get(address);
    if (silentUntil != null && System.nanoTime() - silentUntil < 0) {
      // it gave no reply a moment ago: Jedis's client opens a connection as it is built, the
      // first command opens another, a tool may open two clients, and each would wait again
      closeQuietly(plain);
      throw noTls(address, null);
    }
    SSLSocket tls = (SSLSocket) delegate.createSocket(plain, host, port, autoClose);
    // Jedis sets these after this call returns: the handshake below needs them now (the host name check)
    tls.setSSLParameters(parameters);
    // the deadline closes the plain socket: a read timeout of the TLS socket's own would be
    // waited twice, once for the reply and once more for a close_notify as the failed socket shuts
    AtomicBoolean timedOut = new AtomicBoolean();
    ScheduledFuture<?> deadline = DEADLINES.schedule(() -> {
      timedOut.set(true);
      closeQuietly(plain);
    }, handshakeMillis, TimeUnit.MILLISECONDS);
    try {
      tls.startHandshake();
    } catch (IOException e) {
      if (!timedOut.get()) {
        throw e; // refused in the handshake: RedisErrors.explainTls says what it means
      }
      SILENT.put(address, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(handshakeMillis));
      throw noTls(address, e);
    } finally {
      deadline.cancel(false);
    }
    return tls;
  }

  private SSLHandshakeException noTls(String address, IOException cause) {
    SSLHandshakeException refused = new SSLHandshakeException(address + " gave no reply to the TLS handshake "
        + "within " + handshakeMillis + " ms: it " + NO_TLS + " (a plain port? then the url is redis://, not "
        + "rediss://), or it answers slower than redis.connectTimeout");
    refused.initCause(cause);
    return refused;
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing is all that was wanted
    }
  }

  @Override
  public String[] getDefaultCipherSuites() {
    return delegate.getDefaultCipherSuites();
  }

  @Override
  public String[] getSupportedCipherSuites() {
    return delegate.getSupportedCipherSuites();
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return delegate.createSocket(host, port);
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
    return delegate.createSocket(host, port, localHost, localPort);
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return delegate.createSocket(host, port);
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    return delegate.createSocket(address, port, localAddress, localPort);
  }
}
