package dev.delayq.spring;

import dev.delayq.DelayQueue;
import dev.delayq.job.JobHandler;

/**
 * What the app's meters see: each job its DelayQueue enqueued, and each run of its handlers.
 * {@link #NONE} without Micrometer; {@link MicrometerJobObserver} with it.
 */
public interface JobObserver extends DelayQueue.Listener {
  /** The handler as the in-app worker runs it, observed. */
  JobHandler observe(JobHandler handler);

  JobObserver NONE = new JobObserver() {
    @Override
    public void enqueued(dev.delayq.JobRequest request, dev.delayq.EnqueueResult result) {}

    @Override
    public JobHandler observe(JobHandler handler) {
      return handler;
    }
  };
}
