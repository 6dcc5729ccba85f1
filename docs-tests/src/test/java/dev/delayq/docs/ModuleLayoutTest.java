package dev.delayq.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The house as the README draws it, read from the module poms, so that a change cannot quietly
 * bend it: every module of the build has its row in the README's module table and no row names
 * a module that is gone; dependencies between delayq's modules run one way, down the floors
 * below; what an app links needs nothing of what a user runs; no Java package is split over
 * the main code of two modules; and each test sits in the module of the class it names.
 */
class ModuleLayoutTest {
  /**
   * Each module's floor: a module may depend only on modules of lower floors. 0 the Redis
   * server for tests and tools; 1 common, the contract every process shares; 2 the client, an
   * app's API; 3 the worker engine on it; 4 what runs them or tests with them; 5 what runs
   * those; 6 ours alone (the bench, the end-to-end tests, the examples); 7 the tests of the
   * README and docs, which run all of it.
   */
  private static final Map<String, Integer> FLOORS = Map.ofEntries(
      Map.entry("delayq-bom", 0), Map.entry("delayq-redis-server", 0),
      Map.entry("delayq-common", 1),
      Map.entry("delayq-client", 2),
      Map.entry("delayq-worker", 3), Map.entry("delayq-scheduler", 3),
      Map.entry("delayq-test", 4), Map.entry("delayq-spring-boot-autoconfigure", 4),
      Map.entry("scheduler-proc", 4), Map.entry("worker-proc", 4), Map.entry("delayq-cli", 4),
      Map.entry("delayq-spring-boot3-starter", 5), Map.entry("delayq-spring-boot4-starter", 5),
      Map.entry("supervisor", 5),
      Map.entry("bench", 6), Map.entry("e2e", 6), Map.entry("order-app", 6), Map.entry("order-app-boot4", 6),
      Map.entry("docs-tests", 7));

  /** What an app puts on its classpath: none of it may need a process of the system's. */
  private static final Set<String> APP_SIDE = Set.of("delayq-client", "delayq-worker", "delayq-scheduler",
      "delayq-test",
      "delayq-spring-boot-autoconfigure", "delayq-spring-boot3-starter", "delayq-spring-boot4-starter");
  private static final Set<String> SYSTEM_SIDE = Set.of("scheduler-proc", "worker-proc",
      "delayq-cli", "supervisor");

  private record Module(String dir, String artifact, List<String> delayqDependencies) {}

  @Test
  void everyModuleHasItsFloorAndDependsOnlyDownwards() throws Exception {
    List<String> wrong = new ArrayList<>();
    for (Module m : modules()) {
      Integer floor = FLOORS.get(m.artifact());
      if (floor == null) {
        wrong.add(m.artifact() + ": a module with no floor in ModuleLayoutTest.FLOORS (say where it belongs)");
        continue;
      }
      for (String d : m.delayqDependencies()) {
        if (!FLOORS.containsKey(d) || FLOORS.get(d) >= floor) {
          wrong.add(m.artifact() + " (floor " + floor + ") depends on " + d + " (floor " + FLOORS.get(d) + ")");
        }
        if (APP_SIDE.contains(m.artifact()) && SYSTEM_SIDE.contains(d)) {
          wrong.add(m.artifact() + ", which apps link, depends on " + d + ", which only the system runs");
        }
      }
    }
    assertEquals(List.of(), wrong);
  }

  @Test
  void theReadmeModuleTableListsExactlyTheModulesOfTheBuild() throws Exception {
    Set<String> built = new TreeSet<>();
    for (Module m : modules()) {
      if (!m.artifact().equals("delayq-parent")) {
        built.add(m.dir());
      }
    }
    String readme = Files.readString(MarkdownPage.projectRoot().resolve("README.md"));
    String table = readme.substring(readme.indexOf("## Modules"), readme.indexOf("\n## ", readme.indexOf("## Modules") + 1));
    Set<String> listed = new TreeSet<>();
    Matcher row = Pattern.compile("(?m)^\\| `([^`]+)` \\|").matcher(table);
    while (row.find()) {
      listed.add(row.group(1));
    }
    assertEquals(built, listed, "the README's module table against the root pom's <modules>");
  }

  @Test
  void noPackageIsSplitOverTwoModules() throws Exception {
    Map<String, Set<String>> modulesOf = new TreeMap<>();
    for (Module m : modules()) {
      Path main = MarkdownPage.projectRoot().resolve(m.dir()).resolve("src/main/java");
      if (!Files.isDirectory(main)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(main)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          String pkg = main.relativize(f.getParent()).toString().replace('/', '.');
          modulesOf.computeIfAbsent(pkg, k -> new TreeSet<>()).add(m.artifact());
        }
      }
    }
    Map<String, Set<String>> split = new TreeMap<>();
    modulesOf.forEach((pkg, in) -> {
      if (in.size() > 1) {
        split.put(pkg, in);
      }
    });
    assertEquals(Map.of(), split, "packages in the main code of more than one module");
  }

  /**
   * A test named after a class ({@code FooTest} for {@code Foo}, {@code FooSomethingTest} does
   * not count) lives in the module whose main code holds that class, so that a reader finds a
   * class's test beside it and a module's build runs the tests of its own code.
   */
  @Test
  void everyTestSitsInTheModuleOfTheClassItNames() throws Exception {
    Map<String, Set<String>> mainModulesOf = new TreeMap<>();
    Map<String, Set<String>> testModulesOf = new TreeMap<>();
    for (Module m : modules()) {
      collectClasses(m, "src/main/java", "", mainModulesOf);
      collectClasses(m, "src/test/java", "Test", testModulesOf);
    }
    List<String> misplaced = new ArrayList<>();
    testModulesOf.forEach((cls, testModules) -> {
      Set<String> homes = mainModulesOf.get(cls);
      if (homes != null) {
        for (String t : testModules) {
          if (!homes.contains(t)) {
            misplaced.add(cls + "Test in " + t + ", " + cls + " in " + homes);
          }
        }
      }
    });
    assertEquals(List.of(), misplaced);
  }

  /** Adds each class of the module's {@code dir} whose name ends in {@code suffix}, without it. */
  private static void collectClasses(Module m, String dir, String suffix, Map<String, Set<String>> into)
      throws IOException {
    Path root = MarkdownPage.projectRoot().resolve(m.dir()).resolve(dir);
    if (!Files.isDirectory(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(suffix + ".java")).toList()) {
        String name = f.getFileName().toString();
        String cls = name.substring(0, name.length() - (suffix + ".java").length());
        if (!cls.isEmpty()) {
          into.computeIfAbsent(cls, k -> new TreeSet<>()).add(m.artifact());
        }
      }
    }
  }

  private static List<Module> modules() throws Exception {
    Path root = MarkdownPage.projectRoot();
    Element parent = pom(root.resolve("pom.xml"));
    List<Module> modules = new ArrayList<>();
    for (Element m : children(child(parent, "modules"), "module")) {
      String dir = m.getTextContent().trim();
      Element pom = pom(root.resolve(dir).resolve("pom.xml"));
      List<String> deps = new ArrayList<>();
      Element dependencies = child(pom, "dependencies");
      if (dependencies != null) {
        for (Element d : children(dependencies, "dependency")) {
          String group = text(d, "groupId");
          if ("dev.delayq".equals(group) || "${project.groupId}".equals(group)) {
            deps.add(text(d, "artifactId"));
          }
        }
      }
      modules.add(new Module(dir, text(pom, "artifactId"), deps));
    }
    return modules;
  }

  private static Element pom(Path file) throws Exception {
    if (!Files.exists(file)) {
      throw new IOException("no pom at " + file);
    }
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile()).getDocumentElement();
  }

  private static Element child(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? null : found.get(0);
  }

  /** Direct children only: a dependency under dependencyManagement or a plugin is not the module's. */
  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        found.add(e);
      }
    }
    return found;
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().trim();
  }
}
