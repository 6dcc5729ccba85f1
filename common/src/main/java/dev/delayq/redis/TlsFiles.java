package dev.delayq.redis;

import dev.delayq.config.DelayqConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS side of a {@code rediss://} connection, read from PEM files with the JDK alone: the CA
 * that signed the server's certificate ({@code redis.tlsCaFile}; none means the JVM's trust
 * store) and a client certificate with its key ({@code redis.tlsCertFile}, {@code
 * redis.tlsKeyFile}). Keys are unencrypted PKCS#8 ("PRIVATE KEY", what {@code openssl genpkey}
 * writes) or PKCS#1 RSA ("RSA PRIVATE KEY"); anything else is refused with the openssl command
 * that converts it. Every refusal names the key and the file.
 */
final class TlsFiles {
  private static final Pattern PEM =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
  /** DER of AlgorithmIdentifier { rsaEncryption, NULL }, to wrap a PKCS#1 key as PKCS#8. */
  private static final byte[] RSA_ALGORITHM = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48,
      (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};

  private TlsFiles() {}

  /** A socket factory that trusts the configured CA and presents the client certificate, if any. */
  static SSLSocketFactory socketFactory(DelayqConfig.Redis config) {
    try {
      TrustManagerFactory trust = null;
      if (!config.tlsCaFile().isEmpty()) {
        KeyStore store = emptyStore();
        List<Certificate> cas = certificates("redis.tlsCaFile", config.tlsCaFile());
        for (int i = 0; i < cas.size(); i++) {
          store.setCertificateEntry("ca-" + i, cas.get(i));
        }
        trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
      }
      KeyManagerFactory keys = null;
      if (!config.tlsCertFile().isEmpty()) {
        List<Certificate> chain = certificates("redis.tlsCertFile", config.tlsCertFile());
        KeyStore store = emptyStore();
        store.setKeyEntry("client", privateKey(config.tlsKeyFile()), new char[0],
            chain.toArray(new Certificate[0]));
        keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, new char[0]);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys == null ? null : keys.getKeyManagers(),
          trust == null ? null : trust.getTrustManagers(), null);
      return context.getSocketFactory();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("redis TLS: cannot set up from " + config.tlsCaFile()
          + " / " + config.tlsCertFile() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Host name verification as HTTPS does it (the certificate must name the host connected to),
   * or none: the certificate is then only checked against the CA.
   */
  static SSLParameters parameters(boolean verifyHostname) {
    SSLParameters p = new SSLParameters();
    p.setEndpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
    return p;
  }

  private static KeyStore emptyStore() throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    return store;
  }

  private static List<Certificate> certificates(String key, String file) {
    List<Certificate> out = new ArrayList<>();
    try {
      CertificateFactory x509 = CertificateFactory.getInstance("X.509");
      for (Block b : blocks(key, file)) {
        if (b.type().equals("CERTIFICATE")) {
          out.add(x509.generateCertificate(new ByteArrayInputStream(b.der())));
        }
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(key + " " + file + ": not a valid certificate: " + e.getMessage());
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(key + " " + file + ": no PEM certificate in it "
          + "(-----BEGIN CERTIFICATE-----)");
    }
    return out;
  }

  private static PrivateKey privateKey(String file) {
    String key = "redis.tlsKeyFile";
    for (Block b : blocks(key, file)) {
      switch (b.type()) {
        case "PRIVATE KEY":
          return pkcs8(key, file, b.der());
        case "RSA PRIVATE KEY":
          return pkcs8(key, file, wrapRsa(b.der()));
        case "ENCRYPTED PRIVATE KEY":
          throw new IllegalArgumentException(key + " " + file + ": the key is encrypted; delayq "
              + "reads unencrypted keys (keep the file 0600): openssl pkcs8 -topk8 -nocrypt -in "
              + file + " -out key.pem");
        case "EC PRIVATE KEY":
          throw new IllegalArgumentException(key + " " + file + ": an SEC1 EC key; convert it to "
              + "PKCS#8: openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pem");
        default:
          // a certificate or parameters block in the same file: look further
      }
    }
    throw new IllegalArgumentException(key + " " + file + ": no PEM private key in it "
        + "(-----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----)");
  }

  private static PrivateKey pkcs8(String key, String file, byte[] der) {
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "Ed448"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException wrongAlgorithm) {
        // try the next one
      }
    }
    throw new IllegalArgumentException(key + " " + file + ": not an RSA, EC or EdDSA private key");
  }

  /** PKCS#8 PrivateKeyInfo { version 0, rsaEncryption, OCTET STRING pkcs1 } around a PKCS#1 key. */
  private static byte[] wrapRsa(byte[] pkcs1) {
    byte[] version = {0x02, 0x01, 0x00};
    byte[] octets = tlv(0x04, pkcs1);
    byte[] body = new byte[version.length + RSA_ALGORITHM.length + octets.length];
    System.arraycopy(version, 0, body, 0, version.length);
    System.arraycopy(RSA_ALGORITHM, 0, body, version.length, RSA_ALGORITHM.length);
    System.arraycopy(octets, 0, body, version.length + RSA_ALGORITHM.length, octets.length);
    return tlv(0x30, body);
  }

  private static byte[] tlv(int tag, byte[] value) {
    int n = value.length;
    byte[] length = n < 0x80 ? new byte[] {(byte) n}
        : n < 0x100 ? new byte[] {(byte) 0x81, (byte) n}
        : n < 0x10000 ? new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n}
        : new byte[] {(byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n};
    byte[] out = new byte[1 + length.length + n];
    out[0] = (byte) tag;
    System.arraycopy(length, 0, out, 1, length.length);
    System.arraycopy(value, 0, out, 1 + length.length, n);
    return out;
  }

  private record Block(String type, byte[] der) {}

  private static List<Block> blocks(String key, String file) {
    String text;
    try {
      text = Files.readString(Path.of(file), StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(key + " " + file + ": cannot read it ("
          + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
    }
    List<Block> out = new ArrayList<>();
    Matcher m = PEM.matcher(text);
    while (m.find()) {
      try {
        out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(key + " " + file + ": a " + m.group(1)
            + " block is not valid base64");
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(key + " " + file + ": not a PEM file (no -----BEGIN ...----- block)");
    }
    return out;
  }
}
