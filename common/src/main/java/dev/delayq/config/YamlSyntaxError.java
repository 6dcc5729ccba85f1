package dev.delayq.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.nio.file.Path;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * A config file that is not YAML, said as an editor needs it: the file, the line and column
 * where the parser gave up, what it found there, and where the construct it was reading began
 * (a block mapping opened three lines above is usually where the mistake is).
 */
final class YamlSyntaxError {
  private YamlSyntaxError() {}

  static ConfigException of(Path file, JsonProcessingException e) {
    MarkedYAMLException marked = causeOf(e);
    if (marked != null && marked.getProblemMark() != null) {
      StringBuilder m = new StringBuilder("config file " + file + ": not valid YAML at "
          + at(marked.getProblemMark()) + ": " + firstLine(marked.getProblem()));
      if (marked.getContext() != null) {
        m.append(" (").append(firstLine(marked.getContext()));
        if (marked.getContextMark() != null) {
          m.append(" that starts at ").append(at(marked.getContextMark()));
        }
        m.append(')');
      }
      return new ConfigException(m.toString());
    }
    JsonLocation where = e.getLocation();
    String position = where == null || where.getLineNr() < 1 ? ""
        : " at line " + where.getLineNr() + ", column " + where.getColumnNr();
    return new ConfigException("config file " + file + ": not valid YAML" + position + ": "
        + firstLine(e.getOriginalMessage()));
  }

  /** SnakeYAML counts from 0; editors, and this message, from 1. */
  private static String at(Mark mark) {
    return "line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1);
  }

  private static MarkedYAMLException causeOf(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof MarkedYAMLException m) {
        return m;
      }
    }
    return null;
  }

  private static String firstLine(String text) {
    return text == null ? "" : text.split("\n")[0].trim();
  }
}
