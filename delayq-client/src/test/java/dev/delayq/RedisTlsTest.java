package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.RedisErrors;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.testing.LogLines;
import dev.delayq.redisserver.RedisServer;
import dev.delayq.redisserver.TestCa;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * rediss:// against real redis-server TLS ports, with a CA made for this test by openssl: the
 * configured CA is trusted, another is refused, a certificate for another host is refused
 * unless host name checks are turned off (loudly), and a server that requires client
 * certificates takes the configured one and refuses a client without.
 */
class RedisTlsTest {
  @TempDir
  static Path dir;
  private static TestCa ca;
  private static TestCa otherCa;
  private static TestCa.Files client;
  private static RedisServer server;
  private static RedisServer wrongHost;
  private static RedisServer clientCertRequired;

  @BeforeAll
  static void startTlsServers() throws Exception {
    Files.createDirectories(dir.resolve("ca"));
    Files.createDirectories(dir.resolve("other"));
    ca = TestCa.create(dir.resolve("ca"), "delayq test CA");
    otherCa = TestCa.create(dir.resolve("other"), "someone else's CA");
    client = ca.issue("client");
    server = RedisServer.startTls(ca.issue("server", "IP:127.0.0.1", "DNS:localhost"), false);
    wrongHost = RedisServer.startTls(ca.issue("wrong", "DNS:wrong.example"), false);
    clientCertRequired = RedisServer.startTls(ca.issue("mtls", "IP:127.0.0.1"), true);
  }

  @AfterAll
  static void stopServers() {
    server.close();
    wrongHost.close();
    clientCertRequired.close();
  }

  private static DelayqConfig config(RedisServer target, Map<String, String> more) {
    Map<String, String> env = new HashMap<>(more);
    env.put("DELAYQ_REDIS_URL", "rediss://127.0.0.1:" + target.port());
    env.put("DELAYQ_REDIS_CONNECT_TIMEOUT", "2s");
    return new ConfigLoader().load(null, env);
  }

  private static Map<String, String> trusting(TestCa authority) {
    return Map.of("DELAYQ_REDIS_TLS_CA_FILE", authority.cert().toString());
  }

  private static String ping(DelayqConfig config) {
    try (RedisConnection redis = RedisConnector.connect(config, "tls-test", 2)) {
      redis.checkServer(true);
      return redis.client().ping();
    }
  }

  @Test
  void aPlainPortFailsFastSayingItDoesNotSpeakTls() {
    try (RedisServer plain = RedisServer.start()) {
      Map<String, String> env = new HashMap<>(trusting(ca));
      env.put("DELAYQ_REDIS_URL", "rediss://:hidden-pass@127.0.0.1:" + plain.port());
      DelayqConfig config = new ConfigLoader().load(null, env); // connectTimeout and socketTimeout as shipped

      long began = System.nanoTime();
      RuntimeException e = assertThrows(RuntimeException.class, () -> DelayQueue.connect(config));
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);

      assertTrue(e.getMessage().contains("TLS connection to 127.0.0.1:" + plain.port() + " refused"), e.toString());
      assertTrue(e.getMessage().contains("does not speak TLS (a plain port? then the url is redis://"), e.toString());
      assertTrue(!e.getMessage().contains("hidden-pass"), e.getMessage());
      // one handshake of redis.connectTimeout (2 s as shipped), where it used to be the read timeout over and over
      assertTrue(tookMs < 4_000, "refused after " + tookMs + " ms");
    }
  }

  @Test
  void producerEnqueuesOverTlsWithTheConfiguredCa() {
    try (DelayQueue queue = DelayQueue.connect(config(server, trusting(ca)))) {
      assertTrue(queue.delay("noop", "{}", Duration.ofMinutes(1)).accepted());
    }
  }

  @Test
  void serverSignedByAnotherCaIsRefusedNamingTheCaFile() {
    RedisErrors.TlsRefusedException e = assertThrows(RedisErrors.TlsRefusedException.class,
        () -> ping(config(server, trusting(otherCa))));
    assertTrue(e.getMessage().contains("not signed by a CA this process trusts"), e.getMessage());
    assertTrue(e.getMessage().contains(otherCa.cert().toString()), e.getMessage());
  }

  @Test
  void withoutACaFileTheJvmTrustStoreRefusesTheTestCa() {
    RedisErrors.TlsRefusedException e = assertThrows(RedisErrors.TlsRefusedException.class,
        () -> ping(config(server, Map.of())));
    assertTrue(e.getMessage().contains("set redis.tlsCaFile"), e.getMessage());
  }

  @Test
  void certificateForAnotherHostIsRefused() {
    RedisErrors.TlsRefusedException e = assertThrows(RedisErrors.TlsRefusedException.class,
        () -> ping(config(wrongHost, trusting(ca))));
    assertTrue(e.getMessage().contains("does not name 127.0.0.1"), e.getMessage());
  }

  @Test
  void hostNameCheckTurnedOffAcceptsTheCertificateAndSaysSoAsAWarning() {
    Logger logger = (Logger) LoggerFactory.getLogger(RedisConnector.class);
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.start();
    logger.addAppender(events);
    try {
      Map<String, String> env = new HashMap<>(trusting(ca));
      env.put("DELAYQ_REDIS_TLS_VERIFY_HOSTNAME", "false");
      assertEquals("PONG", ping(config(wrongHost, env)));
    } finally {
      logger.detachAppender(events);
    }
    assertTrue(LogLines.of(events).stream().anyMatch(e -> e.getLevel() == Level.WARN
        && e.getFormattedMessage().contains("redis.tlsVerifyHostname is false")), LogLines.of(events).toString());
  }

  @Test
  void serverRequiringAClientCertificateRefusesAClientWithout() {
    RedisErrors.TlsRefusedException e = assertThrows(RedisErrors.TlsRefusedException.class,
        () -> ping(config(clientCertRequired, trusting(ca))));
    assertTrue(e.getMessage().contains("redis.tlsCertFile"), e.getMessage());
  }

  @Test
  void configuredClientCertificateIsAccepted() {
    Map<String, String> env = new HashMap<>(trusting(ca));
    env.put("DELAYQ_REDIS_TLS_CERT_FILE", client.cert().toString());
    env.put("DELAYQ_REDIS_TLS_KEY_FILE", client.key().toString());
    assertEquals("PONG", ping(config(clientCertRequired, env)));
  }

  @Test
  void traditionalRsaKeyIsReadAndEncryptedKeyRefusedWithTheCommandThatConvertsIt() throws Exception {
    Path rsa = dir.resolve("rsa.key");
    Path encrypted = dir.resolve("encrypted.key");
    run("openssl", "genrsa", "-traditional", "-out", rsa.toString(), "2048");
    run("openssl", "pkcs8", "-topk8", "-in", rsa.toString(), "-out", encrypted.toString(),
        "-passout", "pass:secret");
    assertTrue(Files.readString(rsa).contains("BEGIN RSA PRIVATE KEY"));
    Path rsaCert = dir.resolve("rsa.pem");
    run("openssl", "req", "-new", "-x509", "-key", rsa.toString(), "-out", rsaCert.toString(),
        "-days", "1", "-subj", "/CN=rsa-client");

    DelayqConfig withRsa = config(server, Map.of("DELAYQ_REDIS_TLS_CA_FILE", ca.cert().toString(),
        "DELAYQ_REDIS_TLS_CERT_FILE", rsaCert.toString(), "DELAYQ_REDIS_TLS_KEY_FILE", rsa.toString()));
    assertEquals("PONG", ping(withRsa));

    DelayqConfig withEncrypted = config(server, Map.of("DELAYQ_REDIS_TLS_CA_FILE", ca.cert().toString(),
        "DELAYQ_REDIS_TLS_CERT_FILE", rsaCert.toString(), "DELAYQ_REDIS_TLS_KEY_FILE", encrypted.toString()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ping(withEncrypted));
    assertTrue(e.getMessage().contains("redis.tlsKeyFile " + encrypted), e.getMessage());
    assertTrue(e.getMessage().contains("openssl pkcs8 -topk8 -nocrypt"), e.getMessage());
  }

  @Test
  void missingCaFileIsRefusedNamingTheKeyAndThePath() {
    Path missing = dir.resolve("no-such-ca.pem");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ping(config(server, Map.of("DELAYQ_REDIS_TLS_CA_FILE", missing.toString()))));
    assertTrue(e.getMessage().contains("redis.tlsCaFile " + missing + ": cannot read it"), e.getMessage());
  }

  private static void run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("run.log").toFile()).start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
        String.join(" ", command) + ": " + Files.readString(dir.resolve("run.log")));
  }
}
