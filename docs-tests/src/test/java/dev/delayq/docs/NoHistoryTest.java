package dev.delayq.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README and docs/ say what is true now: no date of a run, no issue number, no commit of
 * the past (git keeps the history). A date in an example (an ISO instant such as
 * 2026-12-01T10:00:00Z, given to --at) is not a run's and is allowed.
 */
class NoHistoryTest {
  private static final Pattern HISTORY = Pattern.compile(
      "\\b20\\d\\d-\\d\\d-\\d\\d\\b(?!T)"                      // a date, not an example's instant
          + "|(?i:\\bissues? #?\\d+)"                            // issue 15, issue #15
          + "|\\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}\\b(?![-.])");   // d7cd9e5, a commit

  @Test
  void theReadmeAndDocsCarryNoDateOfARunNoIssueNumberAndNoCommit() throws IOException {
    List<String> found = new ArrayList<>();
    for (MarkdownPage page : MarkdownPage.all()) {
      List<String> lines = Files.readAllLines(page.file());
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = HISTORY.matcher(lines.get(i));
        while (m.find()) {
          found.add(page.name() + ":" + (i + 1) + ": " + m.group());
        }
      }
    }
    assertEquals(List.of(), found);
  }

  @Test
  void historyIsFoundWhereTheOldReadmeHadIt() {
    for (String line : List.of("(2026-12-07 02:05 – 02:12 UTC, nothing else running)",
        "≤ 5 µs (issue 15): met", "on d7cd9e5 they were 6.1 to 8.7 s late")) {
      assertEquals(true, HISTORY.matcher(line).find(), line);
    }
    for (String line : List.of("bin/delayq enqueue --at 2026-12-01T10:00:00+08:00",
        "Instant.parse(\"2026-12-01T02:00:00Z\")", "worker-1@host-a:4242:3", "a 1,048,576-byte payload")) {
      assertEquals(false, HISTORY.matcher(line).find(), line);
    }
  }
}
