package dev.delayq.redisserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority made with the openssl command for one test: its CA
 * certificate, and certificates it signs for servers and clients (EC P-256 keys in PKCS#8 PEM,
 * valid two days). Nothing of it outlives the test's temp directory.
 */
public final class TestCa {
  /** A certificate, its key and the CA that signed it, as PEM files. */
  public record Files(Path cert, Path key, Path ca) {}

  private final Path dir;
  private final Path caCert;
  private final Path caKey;

  private TestCa(Path dir) {
    this.dir = dir;
    this.caCert = dir.resolve("ca.pem");
    this.caKey = dir.resolve("ca.key");
  }

  /** A new CA named {@code name} in {@code dir}. */
  public static TestCa create(Path dir, String name) {
    TestCa ca = new TestCa(dir);
    openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-keyout", ca.caKey.toString(), "-out", ca.caCert.toString(), "-days", "2",
        "-subj", "/CN=" + name, "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    return ca;
  }

  public Path cert() {
    return caCert;
  }

  /**
   * A certificate for {@code name}, valid for the subject alternative names {@code sans}
   * ("IP:127.0.0.1", "DNS:localhost"); none gives a client certificate.
   */
  public Files issue(String name, String... sans) {
    Path key = dir.resolve(name + ".key");
    Path csr = dir.resolve(name + ".csr");
    Path cert = dir.resolve(name + ".pem");
    Path ext = dir.resolve(name + ".ext");
    List<String> lines = new ArrayList<>();
    if (sans.length > 0) {
      lines.add("subjectAltName=" + String.join(",", sans));
      lines.add("extendedKeyUsage=serverAuth,clientAuth");
    } else {
      lines.add("extendedKeyUsage=clientAuth");
    }
    try {
      java.nio.file.Files.write(ext, lines);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", key.toString(), "-out", csr.toString(), "-subj", "/CN=" + name);
    openssl(dir, "x509", "-req", "-in", csr.toString(), "-CA", caCert.toString(),
        "-CAkey", caKey.toString(), "-CAcreateserial", "-out", cert.toString(), "-days", "2",
        "-extfile", ext.toString());
    return new Files(cert, key, caCert);
  }

  private static void openssl(Path dir, String... args) {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(dir.resolve("openssl.log").toFile()).start();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("openssl " + String.join(" ", args) + " failed: "
            + java.nio.file.Files.readString(dir.resolve("openssl.log")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
