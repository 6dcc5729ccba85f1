package dev.delayq.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One Markdown page of the project (README.md or a page of docs/), read the way GitHub renders
 * it, as far as these tests need: its fenced code blocks (each with its language and the
 * {@code <!-- java: ... -->} marker above it, if any), its headings and their anchors, and its
 * links. A fence left open is an error here, as it swallows the rest of the page when rendered.
 */
final class MarkdownPage {
  private static final Pattern FENCE = Pattern.compile("^( *)(`{3,}|~{3,})\\s*([^`\\s]*)\\s*$");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*java:\\s*(.*?)\\s*-->\\s*$");
  private static final Pattern INLINE_LINK = Pattern.compile("!?\\[([^\\]]*)]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^\\s{0,3}\\[[^\\]]+]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");
  private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
  private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");

  /** A fenced code block: {@code line} is the 1-based line of its opening fence. */
  record CodeBlock(MarkdownPage page, int line, String lang, Optional<String> marker, List<String> body) {
    String where() {
      return page.name() + ":" + line;
    }

    String text() {
      return String.join("\n", body) + "\n";
    }
  }

  /** A link's target as written, on its 1-based line. */
  record Link(MarkdownPage page, int line, String target) {}

  private final Path root;
  private final Path file;
  private final List<String> lines;
  private final List<CodeBlock> blocks = new ArrayList<>();
  /** Per line: true inside a fenced block (fences included). */
  private final boolean[] inCode;
  private final List<String> problems = new ArrayList<>();

  private MarkdownPage(Path root, Path file) {
    this.root = root;
    this.file = file;
    try {
      this.lines = Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.inCode = new boolean[lines.size()];
    scanBlocks();
  }

  /** The project's root: the directory above this module that holds README.md and docs/. */
  static Path projectRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))
          && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no project root (README.md, docs/, pom.xml) above " + Path.of("").toAbsolutePath());
  }

  /** README.md, then every page of docs/, by name. */
  static List<MarkdownPage> all() {
    Path root = projectRoot();
    List<MarkdownPage> pages = new ArrayList<>();
    pages.add(new MarkdownPage(root, root.resolve("README.md")));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(p -> pages.add(new MarkdownPage(root, p)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  static MarkdownPage readme() {
    Path root = projectRoot();
    return new MarkdownPage(root, root.resolve("README.md"));
  }

  static MarkdownPage of(Path file) {
    return new MarkdownPage(projectRoot(), file.toAbsolutePath().normalize());
  }

  Path file() {
    return file;
  }

  /** The page's path from the project root, e.g. docs/java-api.md. */
  String name() {
    return root.relativize(file).toString();
  }

  List<CodeBlock> blocks() {
    return blocks;
  }

  /** What is wrong with the page's fences: a block left open, or one that swallows the next. */
  List<String> fenceProblems() {
    return problems;
  }

  private void scanBlocks() {
    int i = 0;
    while (i < lines.size()) {
      Matcher open = FENCE.matcher(lines.get(i));
      if (!open.matches()) {
        i++;
        continue;
      }
      int indent = open.group(1).length();   // a block inside a list item is indented with it
      String fence = open.group(2);
      String lang = open.group(3).toLowerCase(Locale.ROOT);
      int start = i;
      inCode[i] = true;
      List<String> body = new ArrayList<>();
      i++;
      boolean closed = false;
      while (i < lines.size()) {
        inCode[i] = true;
        String line = lines.get(i);
        String bare = line.strip();
        if (bare.length() >= fence.length() && bare.chars().allMatch(c -> c == fence.charAt(0))) {
          closed = true;
          i++;
          break;
        }
        Matcher inner = FENCE.matcher(line);
        if (inner.matches() && !inner.group(3).isEmpty()) {
          problems.add(name() + ":" + (i + 1) + ": a fence with a language (" + line.strip()
              + ") inside the block opened at line " + (start + 1) + ": that block is not closed before it");
        }
        int cut = 0;
        while (cut < indent && cut < line.length() && line.charAt(cut) == ' ') {
          cut++;
        }
        body.add(line.substring(cut));
        i++;
      }
      if (!closed) {
        problems.add(name() + ":" + (start + 1) + ": the code block opened here is never closed");
      }
      blocks.add(new CodeBlock(this, start + 1, lang, markerAbove(start), List.copyOf(body)));
    }
  }

  /** The {@code <!-- java: ... -->} marker on the line above the fence (blank lines between allowed). */
  private Optional<String> markerAbove(int fenceIndex) {
    for (int j = fenceIndex - 1; j >= 0; j--) {
      String line = lines.get(j);
      if (line.isBlank()) {
        continue;
      }
      Matcher m = MARKER.matcher(line);
      return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }
    return Optional.empty();
  }

  /** Headings outside code blocks, as GitHub renders them (markup stripped), in order. */
  List<String> headings() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (inCode[i]) {
        continue;
      }
      Matcher m = HEADING.matcher(lines.get(i));
      if (m.matches()) {
        out.add(m.group(2));
      }
    }
    return out;
  }

  /** The anchors a link may name: one per heading, GitHub's way, and explicit {@code <a id>}s. */
  Set<String> anchors() {
    Set<String> out = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String heading : headings()) {
      String slug = slug(heading);
      int n = seen.merge(slug, 1, Integer::sum) - 1;
      out.add(n == 0 ? slug : slug + "-" + n);
    }
    for (int i = 0; i < lines.size(); i++) {
      if (!inCode[i]) {
        Matcher a = HTML_ANCHOR.matcher(lines.get(i));
        while (a.find()) {
          out.add(a.group(1));
        }
      }
    }
    return out;
  }

  /**
   * GitHub's anchor of a heading: its text without markup, lower case, without punctuation but
   * hyphens and underscores, spaces turned into hyphens.
   */
  static String slug(String heading) {
    String text = heading
        .replaceAll("!?\\[([^\\]]*)]\\([^)]*\\)", "$1")
        .replace("`", "").replace("*", "")
        .replaceAll("<[^>]+>", "");
    StringBuilder out = new StringBuilder();
    text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        out.appendCodePoint(c);
      } else if (c == ' ') {
        out.append('-');
      }
    });
    return out.toString();
  }

  /** Every link outside code blocks and code spans: inline links, images and reference definitions. */
  List<Link> links() {
    List<Link> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (inCode[i]) {
        continue;
      }
      String line = CODE_SPAN.matcher(lines.get(i)).replaceAll(m -> " ".repeat(m.group().length()));
      Matcher inline = INLINE_LINK.matcher(line);
      while (inline.find()) {
        out.add(new Link(this, i + 1, inline.group(2)));
      }
      Matcher ref = REFERENCE_DEFINITION.matcher(line);
      if (ref.matches()) {
        out.add(new Link(this, i + 1, ref.group(1)));
      }
    }
    return out;
  }

  /**
   * The lines of the section under the heading {@code title} (any level), up to the next heading
   * of the same or a higher level; empty when the page has no such heading.
   */
  Optional<List<String>> section(String title) {
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = inCode[i] ? null : HEADING.matcher(lines.get(i));
      if (m != null && m.matches() && m.group(2).equals(title)) {
        int level = m.group(1).length();
        int end = i + 1;
        while (end < lines.size()) {
          Matcher next = inCode[end] ? null : HEADING.matcher(lines.get(end));
          if (next != null && next.matches() && next.group(1).length() <= level) {
            break;
          }
          end++;
        }
        return Optional.of(lines.subList(i + 1, end));
      }
    }
    return Optional.empty();
  }

  /** The fenced blocks that start inside the section under {@code title}. */
  List<CodeBlock> blocksIn(String title) {
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = inCode[i] ? null : HEADING.matcher(lines.get(i));
      if (m != null && m.matches() && m.group(2).equals(title)) {
        int from = i + 1;
        int to = from + section(title).orElseThrow().size();
        return blocks.stream().filter(b -> b.line() > from && b.line() <= to).toList();
      }
    }
    return List.of();
  }
}
