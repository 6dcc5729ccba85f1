package dev.delayq.supervisor.testjobs;

import dev.delayq.testing.HandlerJar;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Writes {@code <home>/jobs/test-jobs.jar} holding {@link SleepHandler}, {@link FlakyHandler} and
 * {@link CrashHandler} with their ServiceLoader entry: the way an operator adds a job type, used
 * here to give the real workers a slow job, one that fails until told otherwise, and one that
 * kills its worker.
 */
public final class JobsJar {
  private JobsJar() {}

  public static Path install(Path home) throws IOException {
    return HandlerJar.write(home.resolve("jobs"), "test-jobs.jar", SleepHandler.class, FlakyHandler.class,
        CrashHandler.class, OtherSleepHandler.class, TimedHandler.class);
  }
}
