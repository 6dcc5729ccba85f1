package dev.delayq.config;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** A config test's files: writes delayq.yml into its directory, and loads it expecting a refusal. */
final class ConfigFiles {
  private final ConfigLoader loader = new ConfigLoader();
  private final Path dir;

  ConfigFiles(Path dir) {
    this.dir = dir;
  }

  Path yaml(String text) throws IOException {
    Path file = dir.resolve("delayq.yml");
    Files.writeString(file, text);
    return file;
  }

  /** Loads and expects a refusal whose message contains each part. */
  ConfigException refused(Path file, Map<String, String> env, String... parts) {
    ConfigException e = assertThrows(ConfigException.class, () -> loader.load(file, env));
    for (String part : parts) {
      assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' should contain '" + part + "'");
    }
    return e;
  }
}
