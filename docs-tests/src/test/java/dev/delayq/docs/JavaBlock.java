package dev.delayq.docs;

import dev.delayq.docs.MarkdownPage.CodeBlock;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;

/**
 * A ```java block of a page as javac sees it. A block that declares a top-level type (a class,
 * interface, record or enum at the start of a line) is a compilation unit as it stands, imports
 * included. Any other block is a run of statements: it is wrapped in a method, with the imports
 * of {@link #DEFAULT_IMPORTS} and what its marker declares on the line above it:
 *
 * <pre>
 * &lt;!-- java: given DelayQueue queue, JobContext ctx; returns JobResult; import dev.delayq.schedule.* --&gt;
 * &lt;!-- java: fragment --&gt;   (not compiled: say so in the text around it)
 * </pre>
 */
final class JavaBlock {
  /** What a block of statements may use without declaring it: the API an app meets first. */
  static final List<String> DEFAULT_IMPORTS = List.of(
      "java.time.*", "java.util.*", "dev.delayq.*", "dev.delayq.config.*", "dev.delayq.job.*");

  private static final Pattern TYPE_DECLARATION = Pattern.compile(
      "^(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:(?:public|final|abstract|sealed|non-sealed|static)\\s+)*"
          + "(?:class|interface|record|enum|@interface)\\s+(\\w+)");
  private static final Pattern PUBLIC_TYPE = Pattern.compile(
      "^(?:@\\w+(?:\\([^)]*\\))?\\s+)*public\\s+(?:(?:final|abstract|sealed|non-sealed|static)\\s+)*"
          + "(?:class|interface|record|enum|@interface)\\s+(\\w+)");

  final CodeBlock block;
  final boolean fragment;
  final boolean wholeUnit;
  /** The unit's file name without .java: its public type, or a name made from the block's line. */
  final String unitName;
  final String source;
  /** Lines javac sees before the block's first line (the wrapper's, for statements). */
  final int headerLines;

  JavaBlock(CodeBlock block) {
    this.block = block;
    Marker marker = Marker.parse(block);
    this.fragment = marker.fragment;
    Optional<String> declared = typeName(block.body());
    this.wholeUnit = declared.isPresent();
    if (wholeUnit && !marker.isEmpty() && !marker.fragment) {
      throw new IllegalArgumentException(block.where() + ": a block that declares a class compiles as it"
          + " stands; its marker may only say 'fragment', not '" + block.marker().orElse("") + "'");
    }
    if (wholeUnit) {
      this.unitName = declared.get();
      this.source = block.text();
      this.headerLines = 0;
    } else {
      this.unitName = "Block_" + block.page().name().replaceAll("[^A-Za-z0-9]", "_") + "_L" + block.line();
      List<String> header = new ArrayList<>();
      for (String i : DEFAULT_IMPORTS) {
        header.add("import " + i + ";");
      }
      for (String i : marker.imports) {
        header.add("import " + i + ";");
      }
      header.add("class " + unitName + " {");
      header.add("  @SuppressWarnings(\"unused\")");
      header.add("  " + marker.returns + " run(" + String.join(", ", marker.given) + ") throws Exception {");
      header.add("    if (true) {");
      this.headerLines = header.size();
      StringBuilder text = new StringBuilder(String.join("\n", header)).append('\n').append(block.text());
      text.append("    }\n");
      if (!marker.returns.equals("void")) {
        text.append("    throw new AssertionError(\"the block returns on every path\");\n");
      }
      text.append("  }\n}\n");
      this.source = text.toString();
    }
  }

  /** The block's line of a line javac reports (1-based, in {@link #source}). */
  int pageLine(long javacLine) {
    return block.line() + (int) javacLine - headerLines;
  }

  JavaFileObject fileObject() {
    return new SimpleJavaFileObject(URI.create("string:///" + unitName + ".java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
      }
    };
  }

  /** The name of the public top-level type the block declares, else of its first one. */
  static Optional<String> typeName(List<String> body) {
    String first = null;
    for (String line : body) {
      Matcher pub = PUBLIC_TYPE.matcher(line);
      if (pub.find()) {
        return Optional.of(pub.group(1));
      }
      Matcher any = TYPE_DECLARATION.matcher(line);
      if (first == null && any.find()) {
        first = any.group(1);
      }
    }
    return Optional.ofNullable(first);
  }

  /** What the {@code <!-- java: ... -->} marker of a block of statements says. */
  private record Marker(boolean fragment, List<String> given, String returns, List<String> imports) {
    boolean isEmpty() {
      return !fragment && given.isEmpty() && returns.equals("void") && imports.isEmpty();
    }

    static Marker parse(CodeBlock block) {
      boolean fragment = false;
      List<String> given = new ArrayList<>();
      String returns = "void";
      List<String> imports = new ArrayList<>();
      if (block.marker().isEmpty()) {
        return new Marker(false, given, returns, imports);
      }
      for (String clause : block.marker().get().split(";")) {
        String c = clause.strip();
        if (c.isEmpty()) {
          continue;
        }
        if (c.equals("fragment")) {
          fragment = true;
        } else if (c.startsWith("given ")) {
          given.addAll(splitTopLevel(c.substring("given ".length())));
        } else if (c.startsWith("returns ")) {
          returns = c.substring("returns ".length()).strip();
        } else if (c.startsWith("import ")) {
          for (String i : c.substring("import ".length()).split(",")) {
            imports.add(i.strip());
          }
        } else {
          throw new IllegalArgumentException(block.where() + ": marker clause '" + c + "' is not one of "
              + "'fragment', 'given TYPE NAME, ...', 'returns TYPE', 'import NAME, ...'");
        }
      }
      return new Marker(fragment, given, returns, imports);
    }

    /** "Map<String, Integer> m, DelayQueue q" into its two declarations. */
    private static List<String> splitTopLevel(String text) {
      List<String> out = new ArrayList<>();
      int depth = 0;
      int start = 0;
      for (int i = 0; i < text.length(); i++) {
        char ch = text.charAt(i);
        if (ch == '<') {
          depth++;
        } else if (ch == '>') {
          depth--;
        } else if (ch == ',' && depth == 0) {
          out.add(text.substring(start, i).strip());
          start = i + 1;
        }
      }
      out.add(text.substring(start).strip());
      return out;
    }
  }
}
