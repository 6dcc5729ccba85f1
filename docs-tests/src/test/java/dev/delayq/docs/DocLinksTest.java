package dev.delayq.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** README.md and docs/ render as written: every relative link and anchor resolves, every fence closes. */
class DocLinksTest {

  @Test
  void everyRelativeLinkAndAnchorOfTheReadmeAndDocsResolves() {
    Path root = MarkdownPage.projectRoot();
    Map<Path, Set<String>> anchorsOf = new HashMap<>();
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (MarkdownPage page : MarkdownPage.all()) {
      for (MarkdownPage.Link link : page.links()) {
        String target = link.target();
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          continue;   // https:, mailto: ...: not ours to check
        }
        checked++;
        String where = page.name() + ":" + link.line() + ": " + target;
        int hash = target.indexOf('#');
        String pathPart = URLDecoder.decode(hash < 0 ? target : target.substring(0, hash), StandardCharsets.UTF_8);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path file = pathPart.isEmpty() ? page.file()
            : (pathPart.startsWith("/") ? root.resolve(pathPart.substring(1)) : page.file().getParent().resolve(pathPart))
                .normalize();
        if (!file.startsWith(root)) {
          broken.add(where + ": points outside the repository");
          continue;
        }
        if (!Files.exists(file)) {
          broken.add(where + ": no such file or directory");
          continue;
        }
        if (anchor != null && !anchor.isEmpty()) {
          if (!file.toString().endsWith(".md")) {
            broken.add(where + ": an anchor into a file that is not a Markdown page");
            continue;
          }
          Set<String> anchors = anchorsOf.computeIfAbsent(file, f -> MarkdownPage.of(f).anchors());
          if (!anchors.contains(anchor)) {
            broken.add(where + ": no heading with the anchor #" + anchor + " in " + root.relativize(file));
          }
        }
      }
    }
    assertTrue(checked >= 30, "only " + checked + " relative links found: is the link parser broken?");
    assertEquals(List.of(), broken, "broken links");
  }

  @Test
  void everyCodeBlockIsClosed() {
    List<String> problems = new ArrayList<>();
    for (MarkdownPage page : MarkdownPage.all()) {
      problems.addAll(page.fenceProblems());
    }
    assertEquals(List.of(), problems);
  }

  @Test
  void anUnclosedBlockIsFoundWhereItSwallowsTheNextOne(@TempDir Path dir) throws Exception {
    Path page = dir.resolve("unclosed.md");
    Files.writeString(page, String.join("\n",
          "# A page", "", "```sh", "bin/delayq pause default", "", "**Rate limits**", "", "```yaml",
        "queue:", "```", "", "## Next", ""));
    List<String> problems = MarkdownPage.of(page).fenceProblems();
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains(":8: a fence with a language (```yaml) inside the block opened at line 3"),
        problems.get(0));
  }

  @Test
  void anchorsAreGithubs() {
    assertEquals("the-time-wheel-delayed", MarkdownPage.slug("The time wheel (`delayed`)"));
    assertEquals("idle-consumers-the-claim-pace-and-the-hand-off",
        MarkdownPage.slug("Idle consumers, the claim pace and the hand-off"));
    assertEquals("queues-priorities-and-limits", MarkdownPage.slug("Queues, priorities and limits"));
    assertEquals("redisurl-and-the-password", MarkdownPage.slug("`redis.url` and the password"));
  }
}
