package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.supervisor.control.Protocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * One supervisor per home, steered only by its owner, and gone cleanly on stop. One supervisor
 * (started over a stale PID file) serves every test here; the last one stops it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SingleInstanceProcessTest {
  @TempDir
  static Path home;
  static SupervisorProcess sup;

  @BeforeAll
  static void startOverAStalePidFile() throws Exception {
    Files.createDirectories(home.resolve("run"));
    Files.writeString(home.resolve("run/supervisor.pid"), "999999\n");
    sup = SupervisorProcess.start(home, """
        worker:
          processes: 1
        jvm:
          worker: "-version"
        """, SupervisorProcess.testRedisEnv());
    await().atMost(Duration.ofSeconds(30)).until(() -> sup.status().isPresent());
  }

  @AfterAll
  static void cleanUp() throws Exception {
    sup.close();
  }

  @Test
  @Order(1)
  void stalePidFileIsTakenOver() throws Exception {
    assertEquals(sup.process.pid() + "\n", Files.readString(sup.pidFile()));
    assertTrue(sup.output().contains("took over"), sup.output());
  }

  @Test
  @Order(2)
  void secondStartIsRefusedWithExitOneNamingThePid() throws Exception {
    SupervisorProcess.CliResult second = sup.run("start", "--config", sup.config.toString());
    assertEquals(1, second.code(), second.output());
    assertTrue(second.output().contains("already running (pid " + sup.process.pid() + ")"), second.output());
    assertTrue(sup.process.isAlive());
    assertTrue(sup.status().isPresent(), "the first supervisor still answers");
  }

  @Test
  @Order(3)
  void controlSocketIsOwnerOnly() throws Exception {
    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(sup.socket());
    assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE), mode);
  }

  @Test
  @Order(4)
  void statusJsonHasTheStableShape() throws Exception {
    SupervisorProcess.CliResult status = sup.run("status", "--json", "--config", sup.config.toString());
    assertEquals(0, status.code(), status.output());
    var json = Protocol.JSON.readTree(status.output());
    assertEquals(List.of("children", "queue", "flow"), fieldNames(json));
    assertEquals(List.of("paused", "held", "partlyPaused", "waitingForHandler"), fieldNames(json.get("flow")));
    for (var child : json.get("children")) {
      assertEquals(List.of("name", "role", "pid", "state", "restarts", "lastExitCode", "uptimeMs"), fieldNames(child));
    }
    assertEquals(List.of("delayed", "ready", "inFlight", "dead", "waiting", "batchesOpen"), fieldNames(json.get("queue")));
    assertEquals("scheduler", json.get("children").get(0).get("name").asText());
    assertEquals("worker-1", json.get("children").get(1).get("name").asText());
  }

  @Test
  @Order(5)
  void reloadWithoutWorkersRereadsTheConfigAndRestartsExitedChildren() throws Exception {
    Files.writeString(sup.config, Files.readString(sup.config).replace("processes: 1", "processes: 2"));
    SupervisorProcess.CliResult reload = sup.run("reload", "--config", sup.config.toString());
    assertEquals(0, reload.code(), reload.output());
    assertTrue(reload.output().contains("workers: 1 -> 2"), reload.output());
    assertTrue(reload.output().contains("restarted worker-1 (was EXITED)"), reload.output());
    await().atMost(Duration.ofSeconds(20)).until(() -> sup.children("worker").size() == 2);
  }

  @Test
  @Order(6)
  void stopRemovesPidFileAndSocketAndExitsZero() throws Exception {
    SupervisorProcess.CliResult stop = sup.run("stop", "--timeout", "5s", "--config", sup.config.toString());
    assertEquals(0, stop.code(), stop.output());
    assertTrue(stop.output().contains("stopped"), stop.output());
    assertFalse(sup.process.isAlive(), "stop returns once the supervisor is gone");
    assertEquals(0, sup.process.exitValue());
    assertFalse(Files.exists(sup.pidFile()));
    assertFalse(Files.exists(sup.socket()));
  }

  @Test
  @Order(7)
  void commandsSayClearlyWhenNothingRuns() throws Exception {
    SupervisorProcess.CliResult status = sup.run("status", "--config", sup.config.toString());
    assertEquals(3, status.code(), status.output());
    assertTrue(status.output().contains("not running"), status.output());
    SupervisorProcess.CliResult reload = sup.run("reload", "--workers", "2", "--config", sup.config.toString());
    assertEquals(1, reload.code(), reload.output());
    assertTrue(reload.output().contains("not running"), reload.output());
  }

  private static List<String> fieldNames(com.fasterxml.jackson.databind.JsonNode node) {
    List<String> names = new java.util.ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

}
