package dev.delayq.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.delayq.redis.RedisUrl;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the configuration: the defaults shipped in the jar (a copy of conf/delayq.yml), then
 * the operator's file, then DELAYQ_* environment variables, each over the one before.
 */
public final class ConfigLoader {
  private static final Logger log = LoggerFactory.getLogger(ConfigLoader.class);
  private static final String DEFAULTS = "/dev/delayq/config/delayq.yml";
  private static final Map<String, String> ALIASES = Map.of(
      "DELAYQ_REDIS_URL", "redis.url",
      "DELAYQ_QUEUE", "queue.name");

  private final ObjectMapper yaml;
  private Consumer<String> warnings = w -> log.warn("{}", w);

  public ConfigLoader() {
    SimpleModule durations = new SimpleModule().addDeserializer(Duration.class, new DurationReader());
    yaml = new ObjectMapper(new YAMLFactory())
        .registerModule(durations)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
  }

  /**
   * Where warnings go (a DELAYQ_* variable that sets nothing): by default this class's log; the
   * supervisor and the CLI say them on the terminal. Each is given once in a JVM.
   */
  public ConfigLoader warningsTo(Consumer<String> sink) {
    this.warnings = sink;
    return this;
  }

  /** The defaults with the process environment applied (no file). */
  public static DelayqConfig fromEnvironment() {
    return new ConfigLoader().load(null, System.getenv());
  }

  /** Loads {@code file} (null: defaults only) with {@code env} on top. */
  public DelayqConfig load(Path file, Map<String, String> env) {
    ObjectNode tree = readDefaults();
    if (file != null) {
      merge(tree, readFile(file), "");
    }
    UnknownVariables.reportOnce(UnknownVariables.warnings(env, knownVariables(tree)), warnings);
    applyEnvironment(tree, env);
    return convert(tree, file);
  }

  private ObjectNode readDefaults() {
    try (InputStream in = ConfigLoader.class.getResourceAsStream(DEFAULTS)) {
      if (in == null) {
        throw new IllegalStateException("the defaults " + DEFAULTS + " are missing from the jar");
      }
      return (ObjectNode) yaml.readTree(in);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the built-in defaults", e);
    }
  }

  private JsonNode readFile(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("config file " + file + ": not found");
    }
    try {
      JsonNode node = yaml.readTree(file.toFile());
      if (node == null || node.isMissingNode() || node.isNull()) {
        return yaml.createObjectNode();
      }
      if (!node.isObject()) {
        throw new ConfigException("config file " + file + ": must be a YAML mapping of sections");
      }
      return node;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw YamlSyntaxError.of(file, e);
    } catch (IOException e) {
      throw new ConfigException("config file " + file + ": cannot be read: " + e.getMessage());
    }
  }

  /** Copies {@code from} over {@code into}; keys unknown to the defaults fail with their path. */
  private static void merge(ObjectNode into, JsonNode from, String path) {
    Iterator<Map.Entry<String, JsonNode>> fields = from.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String key = path + field.getKey();
      JsonNode known = into.get(field.getKey());
      if (known == null) {
        throw new ConfigException("config key " + key + " = " + shown(key, field.getValue())
            + ": unknown (known here: " + knownKeys(into) + ")");
      }
      if (known.isObject() && known.isEmpty()) {
        // an open mapping (worker.queues, queues): its keys are names the operator chooses
        if (!field.getValue().isObject() && !field.getValue().isNull()) {
          throw new ConfigException("config key " + key + ": must be a mapping, got " + field.getValue());
        }
        into.set(field.getKey(), field.getValue().isNull() ? yamlObject() : field.getValue());
      } else if (known.isObject()) {
        if (!field.getValue().isObject()) {
          throw new ConfigException("config key " + key + ": must be a section, got " + field.getValue());
        }
        merge((ObjectNode) known, field.getValue(), key + ".");
      } else {
        into.set(field.getKey(), field.getValue().isNull() ? new TextNode("") : field.getValue());
      }
    }
  }

  private static ObjectNode yamlObject() {
    return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
  }

  private static String knownKeys(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return String.join(", ", names);
  }

  private static void applyEnvironment(ObjectNode tree, Map<String, String> env) {
    for (Map.Entry<String, String> e : env.entrySet()) {
      String path = ALIASES.getOrDefault(e.getKey(), pathOf(tree, e.getKey()));
      if (path != null) {
        String[] parts = path.split("\\.");
        ObjectNode section = (ObjectNode) tree.get(parts[0]);
        section.set(parts[1], section.get(parts[1]) != null && section.get(parts[1]).isObject()
            ? mapping(e.getKey(), e.getValue()) : new TextNode(e.getValue()));
      }
    }
  }

  /**
   * A mapping given in one variable, {@code name:value,name:value} (DELAYQ_WORKER_QUEUES=
   * critical:6,default:3,low:1), in its order.
   */
  private static ObjectNode mapping(String variable, String text) {
    ObjectNode out = yamlObject();
    for (String pair : text.isBlank() ? new String[0] : text.trim().split("\\s*,\\s*")) {
      String[] kv = pair.split("\\s*:\\s*", 2);
      if (kv.length != 2 || kv[0].isEmpty()) {
        throw new ConfigException(variable + " = " + text + ": '" + pair
            + "' is not name:value (a comma-separated list, e.g. critical:6,default:3,low:1)");
      }
      out.set(kv[0], new TextNode(kv[1]));
    }
    return out;
  }

  /** Every variable that sets a key (DELAYQ_WORKER_THREADS), with the key it sets (worker.threads). */
  private static Map<String, String> knownVariables(JsonNode tree) {
    Map<String, String> known = new TreeMap<>(ALIASES);
    for (Iterator<String> sections = tree.fieldNames(); sections.hasNext(); ) {
      String section = sections.next();
      for (Iterator<String> keys = tree.get(section).fieldNames(); keys.hasNext(); ) {
        String key = keys.next();
        known.put("DELAYQ_" + snake(section) + "_" + snake(key), section + "." + key);
      }
    }
    return known;
  }

  /** worker.drainTimeout for DELAYQ_WORKER_DRAIN_TIMEOUT; null when no key has that name. */
  private static String pathOf(JsonNode tree, String variable) {
    if (!variable.startsWith("DELAYQ_")) {
      return null;
    }
    for (Iterator<String> sections = tree.fieldNames(); sections.hasNext(); ) {
      String section = sections.next();
      for (Iterator<String> keys = tree.get(section).fieldNames(); keys.hasNext(); ) {
        String key = keys.next();
        if (variable.equals("DELAYQ_" + snake(section) + "_" + snake(key))) {
          return section + "." + key;
        }
      }
    }
    return null;
  }

  static String snake(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase();
  }

  private DelayqConfig convert(ObjectNode tree, Path file) {
    try {
      return yaml.treeToValue(tree, DelayqConfig.class);
    } catch (JsonMappingException e) {
      throw new ConfigException(describe(e, tree, file));
    } catch (IOException e) {
      throw new ConfigException("config: " + e.getMessage());
    }
  }

  private static String describe(JsonMappingException e, ObjectNode tree, Path file) {
    String section = e.getPath().stream()
        .map(JsonMappingException.Reference::getFieldName)
        .filter(n -> n != null)
        .collect(Collectors.joining("."));
    String where = file == null ? "" : " (" + file + " or its DELAYQ_* variable)";
    Throwable cause = e.getCause();
    if (cause instanceof IllegalArgumentException bad) {
      // a record constructor refused a value: its message starts with the key inside the section
      String key = bad.getMessage().split(":", 2)[0];
      String path = section.isEmpty() ? key : section + "." + key;
      JsonNode value = tree.at("/" + path.replace('.', '/'));
      return "config key " + path + " = " + shown(path, value) + ": "
          + bad.getMessage().substring(key.length() + 1).trim() + where;
    }
    if (e instanceof UnrecognizedPropertyException u) {
      return "config key " + section + ": unknown" + where;
    }
    JsonNode value = tree.at("/" + section.replace('.', '/'));
    String why = e.getOriginalMessage().split("\n")[0];
    return "config key " + section + " = " + shown(section, value) + ": " + why + where;
  }

  /**
   * A value as an error may show it: a URL without its password, a token or password not at
   * all (an error message ends up in logs and terminals).
   */
  private static String shown(String key, JsonNode value) {
    String name = key.substring(key.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    if (name.contains("token") || name.contains("password") || name.contains("secret")) {
      return "\"***\"";
    }
    if (name.contains("url") && value != null && value.isTextual()) {
      return new TextNode(RedisUrl.redact(value.asText())).toString();
    }
    return String.valueOf(value);
  }

  /** Reads "30s"-style durations; the message names the text when it is not one. */
  private static final class DurationReader extends JsonDeserializer<Duration> {
    @Override
    public Duration deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
      String text = p.getValueAsString();
      try {
        return Durations.parse(text);
      } catch (IllegalArgumentException e) {
        throw JsonMappingException.from(p, e.getMessage());
      }
    }
  }
}
