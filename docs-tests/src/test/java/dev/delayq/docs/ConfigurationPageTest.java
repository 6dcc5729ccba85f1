package dev.delayq.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.delayq.config.DelayqConfig;
import dev.delayq.spring.DelayqProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md cannot drift from the configuration: its tables list exactly the keys of
 * the config records (dev.delayq.config), every key of conf/delayq.yml with the default written
 * there, the DELAYQ_* variable that sets it, and the Spring Boot property, where the starter has
 * one.
 */
class ConfigurationPageTest {
  private static final String QUEUE_PLACEHOLDER = "<queue>";

  /** One row of the page: key | default | variable | Spring Boot property | meaning. */
  record Row(int line, String key, String defaultValue, String variable, String spring, String meaning) {}

  private static Map<String, Row> rows;
  private static JsonNode yaml;
  private static MarkdownPage page;

  @BeforeAll
  static void read() throws Exception {
    Path root = MarkdownPage.projectRoot();
    page = MarkdownPage.of(root.resolve("docs/configuration.md"));
    rows = rows();
    yaml = new ObjectMapper(new YAMLFactory()).readTree(root.resolve("conf/delayq.yml").toFile());
  }

  @Test
  void thePageListsExactlyTheKeysOfTheConfigRecords() {
    Set<String> fromRecords = recordKeys();
    assertEquals(fromRecords, Set.copyOf(rows.keySet()),
        "docs/configuration.md's keys against the records of dev.delayq.config (missing: "
            + minus(fromRecords, rows.keySet()) + "; not keys: " + minus(rows.keySet(), fromRecords) + ")");
  }

  @Test
  void everyKeyOfTheShippedConfigFileIsOnThePageWithItsDefault() {
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, JsonNode> key : yamlKeys().entrySet()) {
      Row row = rows.get(key.getKey());
      if (row == null) {
        wrong.add(key.getKey() + ": in conf/delayq.yml, not on the page");
      } else if (!row.defaultValue().equals(shown(key.getValue()))) {
        wrong.add("docs/configuration.md:" + row.line() + ": " + key.getKey() + " default " + row.defaultValue()
            + ", conf/delayq.yml says " + shown(key.getValue()));
      }
    }
    assertEquals(List.of(), wrong);
  }

  @Test
  void everyKeyNamesTheVariableThatSetsIt() {
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, JsonNode> key : yamlKeys().entrySet()) {
      Row row = rows.get(key.getKey());
      if (row == null) {
        continue;   // reported above
      }
      String[] parts = key.getKey().split("\\.");
      // a list (queue.limits) has no variable: the loader sets text, never a list
      String expected = key.getValue().isArray() ? "–" : "DELAYQ_" + snake(parts[0]) + "_" + snake(parts[1]);
      if (!row.variable().equals(expected) && !row.variable().startsWith(expected + ",")) {
        wrong.add("docs/configuration.md:" + row.line() + ": " + key.getKey() + " variable " + row.variable()
            + ", expected " + expected);
      }
    }
    for (Row row : rows.values()) {
      if (!yamlKeys().containsKey(row.key()) && !row.variable().equals("–")) {
        wrong.add("docs/configuration.md:" + row.line() + ": " + row.key() + " has no variable of its own, not "
            + row.variable());
      }
    }
    assertTrue(rows.get("queue.name").variable().contains("DELAYQ_QUEUE"), "DELAYQ_QUEUE, short for queue.name");
    assertEquals(List.of(), wrong);
  }

  @Test
  void everySpringBootPropertyIsTheStartersAndOnThePage() {
    Map<String, Set<String>> spring = springKeys();
    List<String> wrong = new ArrayList<>();
    for (Row row : rows.values()) {
      String[] parts = row.key().split("\\.");
      boolean has = parts.length == 2 && spring.getOrDefault(parts[0], Set.of()).contains(parts[1]);
      String expected = has ? "delayq." + parts[0] + "." + kebab(parts[1]) : "–";
      if (!row.spring().equals(expected)) {
        wrong.add("docs/configuration.md:" + row.line() + ": " + row.key() + " Spring property " + row.spring()
            + ", expected " + expected);
      }
    }
    String text = String.join("\n", pageLines());
    for (Map.Entry<String, Set<String>> section : spring.entrySet()) {
      for (String field : section.getValue()) {
        if (!rows.containsKey(section.getKey() + "." + field)) {
          String property = "delayq." + section.getKey() + "." + kebab(field);
          if (!text.contains(property)) {
            wrong.add(property + ": a property of the starter (DelayqProperties) that the page does not name");
          }
        }
      }
    }
    assertEquals(List.of(), wrong);
  }

  /** section.key for every key of the records; queue.limits[].X and queues.<queue>.X for the nested ones. */
  static Set<String> recordKeys() {
    Set<String> keys = new LinkedHashSet<>();
    for (RecordComponent section : DelayqConfig.class.getRecordComponents()) {
      if (section.getName().equals("queues")) {
        Class<?> settings = typeArgument(section.getGenericType(), 1);
        nested(keys, "queues." + QUEUE_PLACEHOLDER, settings);
        continue;
      }
      for (RecordComponent key : section.getType().getRecordComponents()) {
        String name = section.getName() + "." + key.getName();
        keys.add(name);
        if (List.class.isAssignableFrom(key.getType())) {
          nested(keys, name + "[]", typeArgument(key.getGenericType(), 0));
        }
      }
    }
    return keys;
  }

  private static void nested(Set<String> keys, String prefix, Class<?> record) {
    for (RecordComponent c : record.getRecordComponents()) {
      if (c.getType().isRecord()) {
        nested(keys, prefix + "." + c.getName(), c.getType());
      } else {
        keys.add(prefix + "." + c.getName());
      }
    }
  }

  private static Class<?> typeArgument(Type type, int index) {
    return (Class<?>) ((ParameterizedType) type).getActualTypeArguments()[index];
  }

  /** section.key → its value, for every key of conf/delayq.yml's sections (not the open queues: mapping). */
  private static Map<String, JsonNode> yamlKeys() {
    Map<String, JsonNode> keys = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> sections = yaml.fields(); sections.hasNext(); ) {
      Map.Entry<String, JsonNode> section = sections.next();
      for (Iterator<Map.Entry<String, JsonNode>> k = section.getValue().fields(); k.hasNext(); ) {
        Map.Entry<String, JsonNode> key = k.next();
        keys.put(section.getKey() + "." + key.getKey(), key.getValue());
      }
    }
    return keys;
  }

  /** The starter's keys by section: the fields of DelayqProperties' section classes. */
  private static Map<String, Set<String>> springKeys() {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    for (Class<?> section : DelayqProperties.class.getDeclaredClasses()) {
      Set<String> fields = new LinkedHashSet<>();
      for (Field f : section.getDeclaredFields()) {
        if (!Modifier.isStatic(f.getModifiers())) {
          fields.add(f.getName());
        }
      }
      out.put(section.getSimpleName().toLowerCase(), fields);
    }
    return out;
  }

  /** A value as the page writes it: "" for an empty text, [] and {} for empty collections. */
  private static String shown(JsonNode value) {
    if (value.isTextual() && value.asText().isEmpty()) {
      return "\"\"";
    }
    if (value.isContainerNode()) {
      return value.isEmpty() ? (value.isArray() ? "[]" : "{}") : value.toString();
    }
    return value.asText();
  }

  static String snake(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase();
  }

  static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
  }

  private static Set<String> minus(Set<String> a, Set<String> b) {
    Set<String> out = new LinkedHashSet<>(a);
    out.removeAll(b);
    return out;
  }

  private static List<String> pageLines() {
    try {
      return Files.readAllLines(page.file());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The rows of every table whose first cell is a key in backticks, code spans unquoted. */
  private static Map<String, Row> rows() {
    Map<String, Row> out = new LinkedHashMap<>();
    List<String> lines = pageLines();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (!line.startsWith("| `")) {
        continue;
      }
      List<String> cells = cells(line);
      if (cells.size() < 5) {
        throw new AssertionError("docs/configuration.md:" + (i + 1) + ": a key's row needs 5 cells "
            + "(key | default | variable | Spring Boot property | meaning): " + line);
      }
      Row row = new Row(i + 1, bare(cells.get(0)), bare(cells.get(1)), bare(cells.get(2)), bare(cells.get(3)),
          cells.get(4));
      Row before = out.put(row.key(), row);
      if (before != null) {
        throw new AssertionError("docs/configuration.md:" + (i + 1) + ": " + row.key() + " is listed twice (also line "
            + before.line() + ")");
      }
    }
    return out;
  }

  /** The cells of a table row; a | inside a code span does not split. */
  private static List<String> cells(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    boolean code = false;
    for (int i = 1; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '`') {
        code = !code;
      }
      if (c == '|' && !code && line.charAt(i - 1) != '\\') {
        out.add(cell.toString().strip());
        cell.setLength(0);
      } else {
        cell.append(c);
      }
    }
    return out;
  }

  /** A cell without its code-span backticks. */
  private static String bare(String cell) {
    return cell.replace("`", "").strip();
  }
}
