package dev.delayq.redis;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLException;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/** What a Redis error means for delayq: a change of master, a TLS refusal, or an outage. */
public final class RedisErrors {
  private RedisErrors() {}

  /** TRYAGAIN: a multi-key command met a cluster slot that is half migrated; it did not run. */
  public static boolean isSlotMoving(Throwable e) {
    return e instanceof JedisDataException && e.getMessage() != null
        && e.getMessage().startsWith("TRYAGAIN");
  }

  /**
   * True when the server answered as a replica: READONLY to a write, a blocked command released
   * because the server turned replica (UNBLOCKED), or MASTERDOWN. The master moved: the process
   * must find it again, not wait for this server to come back.
   */
  public static boolean isTopologyChange(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof JedisDataException && t.getMessage() != null) {
        String m = t.getMessage();
        if (m.startsWith("READONLY") || m.startsWith("MASTERDOWN")
            || (m.startsWith("UNBLOCKED") && m.contains("replica"))) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * True when {@code e} (or a cause of it, such as a shard's failure) says a call went out and its
   * answer never came: the connection broke while the reply was awaited (closed by the server or
   * on the way, reset, or the read timed out), not while connecting. Such a call may have run and
   * applied, and what it answered is unknown: like a call whose replicas fell short, it is sent
   * again, and a retry that finds its delivery gone may be meeting this very call.
   */
  public static boolean isReplyLost(Throwable e) {
    if (find(e, ConnectException.class) != null || find(e, UnknownHostException.class) != null
        || find(e, NoRouteToHostException.class) != null) {
      return false; // it never reached Redis (Jedis 8 keeps the connect failure as suppressed)
    }
    boolean connectionLost = false;
    boolean midCall = false;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof TlsRefusedException) {
        return false; // refused at the handshake
      }
      if (t instanceof JedisConnectionException && t.getMessage() != null
          && t.getMessage().startsWith("Attempting to write to a broken connection")) {
        return false; // refused before anything was sent
      }
      if (t instanceof JedisConnectionException) {
        connectionLost = true;
        String m = t.getMessage();
        // Jedis read the end of the stream where the reply should have been
        midCall |= m != null && (m.startsWith("Unexpected end of stream")
            || m.startsWith("It seems like server has closed the connection"));
      }
      midCall |= t instanceof IOException; // reset, broken pipe, read timed out
    }
    return connectionLost && midCall;
  }

  /** A TLS handshake that failed, with what to change said in its message. */
  public static final class TlsRefusedException extends JedisConnectionException {
    TlsRefusedException(String message) {
      super(message);
    }
  }

  /**
   * {@code e} as a {@link TlsRefusedException} with a message an operator can act on when a TLS
   * handshake failed under it; otherwise {@code e} itself.
   */
  static JedisConnectionException explainTls(JedisConnectionException e, HostAndPort server,
      String caFile, boolean clientCertificate) {
    if (e instanceof TlsRefusedException) {
      return e;
    }
    SSLException ssl = find(e, SSLException.class);
    if (ssl == null) {
      SocketException closed = find(e, SocketException.class);
      if (closed != null && !clientCertificate) {
        // TLS 1.3: the server checks the client's certificate after the handshake, so a refusal
        // reaches this side as a closed socket on the first command of the new connection
        return new TlsRefusedException("TLS connection to " + server + " closed by the server "
            + "right after the handshake: it requires a client certificate (redis.tlsCertFile and "
            + "redis.tlsKeyFile) [" + closed.getMessage() + "]");
      }
      return e;
    }
    String raw = String.valueOf(ssl.getMessage());
    String why;
    if (raw.contains("PKIX") || raw.contains("certification path")) {
      why = "its certificate is not signed by a CA this process trusts ("
          + (caFile.isEmpty() ? "the JVM's trust store; set redis.tlsCaFile to the CA's PEM file"
              : "redis.tlsCaFile " + caFile) + ")";
    } else if (raw.contains("subject alternative") || raw.contains("No name matching")
        || raw.contains("No subject")) {
      why = "its certificate does not name " + server.getHost() + " (host name verification is on; "
          + "connect by a name the certificate holds, or set redis.tlsVerifyHostname: false)";
    } else if (raw.contains("certificate_required") || raw.contains("bad_certificate")
        || raw.contains("unknown_ca") || raw.contains("handshake_failure")) {
      why = "it refused this client (it requires a client certificate it trusts: "
          + "redis.tlsCertFile and redis.tlsKeyFile)";
    } else if (raw.contains(HandshakeFirstSockets.NO_TLS)) {
      return new TlsRefusedException("TLS connection to " + server + " refused: " + raw);
    } else if (raw.contains("Unsupported or unrecognized SSL message") || raw.contains("plaintext")) {
      why = "it does not speak TLS (a plain port? then the url is redis://, not rediss://)";
    } else {
      why = "the TLS handshake failed";
    }
    return new TlsRefusedException("TLS connection to " + server + " refused: " + why + " [" + raw + "]");
  }

  /**
   * The first {@code type} among {@code e} and its causes, not what they suppressed: what the call
   * itself failed with (a failure a pool suppressed into it is an earlier try's). Null when none.
   */
  public static <T extends Throwable> T causeOf(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  /**
   * The first {@code type} among {@code e}, its causes and what they suppressed, each looked at
   * once: a pool's failures can suppress one another (a retry's failure added to the one it
   * retried, which is also its cause), and a walk without that would never end.
   */
  private static <T extends Throwable> T find(Throwable e, Class<T> type) {
    return find(e, type, t -> true);
  }

  /** As {@link #find(Throwable, Class)}, the first that also passes {@code test}. */
  static <T extends Throwable> T find(Throwable e, Class<T> type, java.util.function.Predicate<T> test) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Deque<Throwable> next = new ArrayDeque<>();
    if (e != null) {
      next.add(e);
    }
    while (!next.isEmpty()) {
      Throwable t = next.poll();
      if (!seen.add(t)) {
        continue;
      }
      if (type.isInstance(t) && test.test(type.cast(t))) {
        return type.cast(t);
      }
      if (t.getCause() != null) {
        next.add(t.getCause());
      }
      next.addAll(List.of(t.getSuppressed()));
    }
    return null;
  }
}
