package dev.delayq.docs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every ```java block of README.md and docs/ compiles, against the libraries an app links (this
 * module's test classpath: delayq-client, delayq-worker, the delayq-test kit, the Spring Boot 3
 * starter, JUnit). The blocks of one page compile together, so a page may define a handler in one
 * block and use it in the next. See {@link JavaBlock} for how a block of statements is wrapped.
 */
class JavaBlocksCompileTest {

  @TestFactory
  Stream<DynamicTest> theJavaBlocksOfEveryPageCompile() {
    List<MarkdownPage> pages = MarkdownPage.all();
    return pages.stream()
        .filter(p -> p.blocks().stream().anyMatch(b -> b.lang().equals("java")))
        .map(p -> DynamicTest.dynamicTest("the Java blocks of " + p.name() + " compile", () -> assertCompiles(p)));
  }

  @Test
  void theDocsHoldJavaBlocksToCompileAndFewFragments() {
    int compiled = 0;
    List<String> fragments = new ArrayList<>();
    for (MarkdownPage page : MarkdownPage.all()) {
      for (MarkdownPage.CodeBlock b : page.blocks()) {
        if (b.lang().equals("java")) {
          if (new JavaBlock(b).fragment) {
            fragments.add(b.where());
          } else {
            compiled++;
          }
        }
      }
    }
    // a parser that found no block would make the test above pass on nothing
    assertTrue(compiled >= 15, "only " + compiled + " Java blocks found to compile");
    assertTrue(fragments.size() <= 3, "more than a few blocks are marked fragment: " + fragments);
  }

  @Test
  void theReadmesJavaExampleIsAWholeClassWithItsImportsAndItsHandler() {
    List<JavaBlock> java = MarkdownPage.readme().blocks().stream()
        .filter(b -> b.lang().equals("java")).map(JavaBlock::new).toList();
    assertFalse(java.isEmpty(), "the README has no Java example");
    JavaBlock example = java.get(0);
    assertTrue(example.wholeUnit, example.block.where() + ": the README's example is not a whole class");
    assertTrue(example.source.contains("import dev.delayq."), example.block.where() + ": no imports");
    assertTrue(example.source.contains("implements JobHandler"),
        example.block.where() + ": the handler it uses is not defined in it");
  }

  private static void assertCompiles(MarkdownPage page) throws IOException {
    List<JavaBlock> blocks = page.blocks().stream()
        .filter(b -> b.lang().equals("java"))
        .map(JavaBlock::new)
        .filter(b -> !b.fragment)
        .toList();
    Map<String, JavaBlock> byUnit = new HashMap<>();
    List<JavaFileObject> units = new ArrayList<>();
    for (JavaBlock b : blocks) {
      JavaBlock before = byUnit.put(b.unitName, b);
      assertNull(before, () -> page.name() + ": two blocks declare " + b.unitName
          + " (lines " + before.block.line() + " and " + b.block.line() + ")");
      units.add(b.fileObject());
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "no Java compiler in this JVM (a JRE, not a JDK?)");
    Path out = Files.createTempDirectory("docs-javac");
    try {
      DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
      List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-d", out.toString(),
          "-proc:none", "-implicit:none", "-encoding", "UTF-8");
      StringWriter javacOut = new StringWriter();
      boolean ok = javac.getTask(javacOut, null, diagnostics, options, null, units).call();
      List<String> errors = new ArrayList<>();
      for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
        if (d.getKind() != Diagnostic.Kind.ERROR) {
          continue;
        }
        String where = page.name();
        if (d.getSource() != null) {
          String unit = d.getSource().getName().replaceAll("^.*/|\\.java$", "");
          JavaBlock b = byUnit.get(unit);
          where = b == null ? unit : page.name() + ":" + b.pageLine(d.getLineNumber())
              + " (block of line " + b.block.line() + (b.wholeUnit ? "" : ", statements") + ")";
        }
        errors.add(where + ": " + d.getMessage(null));
      }
      assertTrue(ok && errors.isEmpty(), "Java blocks that do not compile:\n" + String.join("\n", errors) + javacOut);
    } finally {
      try (Stream<Path> files = Files.walk(out)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (UncheckedIOException e) {
        // a temp dir left behind is harmless
      }
    }
  }
}
