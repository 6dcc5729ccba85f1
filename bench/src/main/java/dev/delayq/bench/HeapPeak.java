package dev.delayq.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * How much of this JVM's heap one call took: the heap after a full GC before it, the peak of the
 * heap pools during it (garbage included; the pools' peaks added up, so an upper bound), and the
 * largest heap left after any GC during it (what the call held on to at most, when a GC ran).
 */
final class HeapPeak {
  private HeapPeak() {}

  /** The call's result beside its heap figures (MB; heap_live_max_mb -1 when no GC ran during it). */
  record Measured<T>(T result, Map<String, Object> heap) {}

  static <T> Measured<T> of(Callable<T> call) throws Exception {
    List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP).toList();
    System.gc();
    long before = pools.stream().mapToLong(p -> p.getUsage().getUsed()).sum();
    pools.forEach(MemoryPoolMXBean::resetPeakUsage);
    AtomicLong liveMax = new AtomicLong(-1);
    NotificationListener listener = (notification, handback) -> {
      if (notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
        GarbageCollectionNotificationInfo info =
            GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        long after = 0;
        for (MemoryUsage u : info.getGcInfo().getMemoryUsageAfterGc().values()) {
          after += u.getUsed();
        }
        // the map holds non-heap pools too (metaspace, code cache): take the heap pools only
        after -= nonHeapUsed(info.getGcInfo().getMemoryUsageAfterGc());
        liveMax.accumulateAndGet(after, Math::max);
      }
    };
    List<NotificationEmitter> emitters = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(listener, null, null);
        emitters.add(emitter);
      }
    }
    T result;
    try {
      result = call.call();
    } finally {
      for (NotificationEmitter e : emitters) {
        e.removeNotificationListener(listener);
      }
    }
    long peak = pools.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
    Map<String, Object> heap = new LinkedHashMap<>();
    heap.put("heap_before_mb", mb(before));
    heap.put("heap_peak_mb", mb(peak));
    heap.put("heap_live_max_mb", liveMax.get() < 0 ? -1 : mb(liveMax.get()));
    heap.put("heap_max_mb", mb(Runtime.getRuntime().maxMemory()));
    return new Measured<>(result, heap);
  }

  private static long nonHeapUsed(Map<String, MemoryUsage> byPool) {
    long sum = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.NON_HEAP && byPool.containsKey(p.getName())) {
        sum += byPool.get(p.getName()).getUsed();
      }
    }
    return sum;
  }

  private static double mb(long bytes) {
    return Math.round(bytes / 1024.0 / 1024.0 * 10) / 10.0;
  }
}
