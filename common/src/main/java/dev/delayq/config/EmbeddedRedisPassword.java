package dev.delayq.config;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * The password of the supervisor's embedded Redis: generated at its first start and kept in
 * {@code run/redis.password} (mode 0600), so only the user who runs delayq can reach the jobs.
 * The supervisor hands it to its children in their environment, never on a command line;
 * {@code bin/delayq} and producers on the same home read it from the file.
 */
public final class EmbeddedRedisPassword {
  public static final String FILE_NAME = "redis.password";

  private EmbeddedRedisPassword() {}

  public static Path file(Path runDir) {
    return runDir.resolve(FILE_NAME);
  }

  /**
   * The supervisor's side: the kept password, or a new one when there is none yet, or when the
   * file could have been read by another user (then the old one is no secret any more).
   */
  public static String loadOrCreate(Path runDir) {
    Path file = file(runDir);
    return SecretFile.readPrivate(file).orElseGet(() -> {
      String password = SecretFile.generate();
      SecretFile.write(file, password);
      return password;
    });
  }

  /**
   * The URL that reaches the Redis of {@code config}: {@code redis.url} when set, else the
   * embedded server's with the password of {@code home}'s run directory; without one when no
   * supervisor ever started there (connecting then fails and says so). A clear error when the
   * file is there but cannot be read (another user's).
   */
  public static String connectUrl(DelayqConfig config, Path home) {
    if (!config.redis().embedded()) {
      return config.redisUrl();
    }
    Path file = file(home.resolve(config.supervisor().runDir()));
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      return config.redis().embeddedUrl();
    }
    String password;
    try {
      password = SecretFile.read(file);
    } catch (ConfigException e) {
      throw new ConfigException("the embedded Redis needs its password: " + e.getMessage()
          + "; run this as the user who runs bin/delayq-supervisor, or set DELAYQ_REDIS_URL / redis.url");
    }
    return withPassword(config.redis().embeddedUrl(), password);
  }

  /** {@code redis://host:port} with {@code password} (URL-safe, as generated) for the default user. */
  public static String withPassword(String url, String password) {
    return url.replaceFirst("^redis://", "redis://:" + password + "@");
  }
}
