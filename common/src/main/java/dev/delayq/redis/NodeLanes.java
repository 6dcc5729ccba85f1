package dev.delayq.redis;

import dev.delayq.redis.NodeFanOut.Outcome;
import dev.delayq.redis.Scripts.Call;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The per-shard calls of a sharded queue on a Redis Cluster (forwards, lease renewals, trims,
 * the scheduler beat), each node's calls sent and read on a thread of that node's own (its lane),
 * so that a node that hangs holds up only its own shards. A hung node (SIGSTOP, a partition that
 * drops packets) neither answers nor refuses: one pipeline over every node, read on the caller's
 * thread, waited for it until {@code redis.socketTimeout} (5 s), and the healthy shards' forwards
 * with it (a 4 s SIGSTOP of shard 0's master left shards 1 and 2 up to 3.5 s late).
 *
 * <p>The caller waits for the lanes' answers up to {@link #ANSWER_WITHIN_NANOS}. A node that has
 * not answered by then leaves its calls in flight: they are answered {@link NodeInFlightException}
 * (held back, not failed), and while its lane still waits for it no call to that node is sent,
 * so a call is never sent twice at the same time and forwarding stays single-writer per shard.
 * Its late answer is dropped (a forward or trim done then was done; the shard's next call sees
 * its effect). A node that overran its last call is waited for 20 ms only until it answers in time
 * again, so a hang costs the healthy shards the whole wait once, not at every call that
 * {@code redis.socketTimeout} lets go to it again.
 *
 * <p>A worker's claim reads the other shards' lengths here too ({@link #lengths}), sent before
 * its own claim goes on the consumer's thread: a hung node's shards read as empty, so no scan
 * waits on it. Many consumers' reads queue on a lane; calls that change something go one at a
 * time per node ({@link NodeLane#take}).
 *
 * <p>The cost: a hand-over to each node's thread and back on every such pass and scan, where one
 * pipeline read every node on the caller's thread (not measured here; the forward precision bench
 * is the lead's); one-shard queues and queues on one server never come here.
 */
final class NodeLanes {
  private static final Logger log = LoggerFactory.getLogger(NodeLanes.class);
  /** How long a pass waits for its nodes: well above a loaded host's round trip, well below the forward precision tests' 1 s. */
  static final long ANSWER_WITHIN_NANOS = 200_000_000L;
  /** How long a pass waits for a node that overran its last call (see {@link Pending#await}). */
  static final long SLOW_NODE_WITHIN_NANOS = 20_000_000L;
  private static final Field PROVIDER = providerField();

  private final RedisClusterClient cluster;
  private final ClusterConnectionProvider provider;
  private final Map<HostAndPort, NodeLane> lanes = new ConcurrentHashMap<>();

  private NodeLanes(RedisClusterClient cluster, ClusterConnectionProvider provider) {
    this.cluster = cluster;
    this.provider = provider;
  }

  /** Lanes for {@code redis} when it is a cluster client whose slot map can be read; else null. */
  static NodeLanes of(UnifiedJedis redis) {
    if (!(redis instanceof RedisClusterClient cluster) || PROVIDER == null) {
      return null;
    }
    try {
      return new NodeLanes(cluster, (ClusterConnectionProvider) PROVIDER.get(cluster));
    } catch (IllegalAccessException | ClassCastException e) {
      log.warn("Redis Cluster: cannot read this Jedis's slot map ({}); a hung node holds up the per-shard "
          + "calls of every node until redis.socketTimeout", e.toString());
      return null;
    }
  }

  private static Field providerField() {
    try {
      Field f = UnifiedJedis.class.getDeclaredField("provider");
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("Redis Cluster: this Jedis does not let delayq read its slot map ({}); a hung node holds up "
          + "the per-shard calls of every node until redis.socketTimeout", e.toString());
      return null;
    }
  }

  /**
   * Sends {@code calls} of {@code script}, each node's on its lane, and returns their outcomes in
   * order: {@code read} turns a call's pipelined reply into its outcome (run on the lane).
   */
  List<Outcome> evalEach(Script script, List<Call> calls, BiFunction<Call, Response<Object>, Outcome> read,
      Runnable nodeLost) {
    return evalEach(script, calls, false, read, nodeLost);
  }

  /**
   * As above; {@code mayQueue}: the calls may queue on a lane behind others, as reads do (a call
   * whose second sending changes nothing more, such as a heartbeat, which must not be held back
   * because consumers' reads of lengths are queued on a healthy node's lane).
   */
  List<Outcome> evalEach(Script script, List<Call> calls, boolean mayQueue,
      BiFunction<Call, Response<Object>, Outcome> read, Runnable nodeLost) {
    List<String> route = new ArrayList<>(calls.size());
    for (Call c : calls) {
      route.add(c.keys().get(0));
    }
    return send(route, mayQueue, (pipeline, at) -> {
      List<Response<Object>> responses = new ArrayList<>(at.size());
      for (int i : at) {
        responses.add(pipeline.evalsha(script.sha(), calls.get(i).keys(), calls.get(i).args()));
      }
      return () -> {
        Outcome[] out = new Outcome[at.size()];
        for (int k = 0; k < out.length; k++) {
          out[k] = read.apply(calls.get(at.get(k)), responses.get(k));
        }
        return out;
      };
    }, Outcome[]::new, inFlight -> new Outcome(null, inFlight), failed -> new Outcome(null, failed), nodeLost).await();
  }

  /**
   * The lengths of {@code lists} (each the ready list of a shard), each node's read on its lane;
   * {@link #send} returns at once, and the answers are awaited apart. A length whose node hangs (it has not answered, now or a call before)
   * is 0: a claim there would hang too, and the shard's watcher sends a consumer once it answers.
   * One that failed otherwise is 1, so that the list is tried and the claim there says why.
   */
  Pending<Long> lengths(List<String> lists, Runnable nodeLost) {
    return send(lists, true, (pipeline, at) -> {
      List<Response<Long>> responses = new ArrayList<>(at.size());
      for (int i : at) {
        responses.add(pipeline.llen(lists.get(i)));
      }
      return () -> {
        Long[] out = new Long[at.size()];
        for (int k = 0; k < out.length; k++) {
          try {
            out[k] = Pipelines.reply(responses.get(k), "LLEN of a ready list");
          } catch (JedisException e) {
            out[k] = 1L; // a redirect, a moving slot, a lost reply: the claim there follows it, or says
          }
        }
        return out;
      };
    }, Long[]::new, inFlight -> 0L, failed -> 1L, nodeLost);
  }

  /**
   * Runs {@code work} for each index of {@code route}, each node's share one after another on its
   * lane (the one on {@code route.get(i)}'s node at index i), and returns the answers in order:
   * for work made of several calls that wait on one another (a recovery: the expired consumers
   * read, then each one's jobs taken back), which cannot be one pipeline. {@code work} calls Redis
   * through the cluster client as any caller does; on the lane, a node that hangs holds up only
   * its own lane. Answered and held back as {@link #evalEach}'s calls are: a node not answered
   * within the wait leaves its work's answers {@code inFlight}, and nothing else that changes
   * something goes to it until that work ends; a work's own failure is its index's {@code failed}.
   */
  <T> List<T> runEach(List<String> route, IntFunction<T> work, IntFunction<T[]> array,
      Function<NodeInFlightException, T> inFlight, Function<JedisException, T> failed) {
    return dispatch(route, false, (slot, at) -> {
      T[] done = array.apply(at.size());
      for (int k = 0; k < done.length; k++) {
        try {
          done[k] = work.apply(at.get(k));
        } catch (JedisException e) {
          done[k] = failed.apply(e);
        }
      }
      return done;
    }, array, inFlight, failed, () -> { }).await();
  }

  /**
   * Whether the node of {@code key}'s slot hangs: it overran its last call and has not answered
   * the one it holds. No call: what the lanes saw of it.
   */
  boolean hangs(String key) {
    HostAndPort node = provider.getNode(JedisClusterCRC16.getSlot(key));
    NodeLane lane = node == null ? null : lanes.get(node);
    return lane != null && lane.slow && lane.unanswered.get() > 0;
  }

  /** The commands of one node, queued on its pipeline; what it returns reads their replies after the sync. */
  private interface NodeCommands<T> {
    java.util.function.Supplier<T[]> queue(Pipeline pipeline, List<Integer> at);
  }

  /** Commands sent apart, node by node: {@link #await()} gives their answers in order. */
  static final class Pending<T> {
    private final T[] out;
    private final List<Sent<T>> sent;
    private final Function<NodeInFlightException, T> inFlight;

    private Pending(T[] out, List<Sent<T>> sent, Function<NodeInFlightException, T> inFlight) {
      this.out = out;
      this.sent = sent;
      this.inFlight = inFlight;
    }

    /**
     * Waits up to {@link #ANSWER_WITHIN_NANOS} from now for the nodes, {@link #SLOW_NODE_WITHIN_NANOS}
     * for one that overran its last call. A node not answered by then leaves its commands' answers
     * in flight.
     */
    List<T> await() {
      long now = System.nanoTime();
      long deadline = now + ANSWER_WITHIN_NANOS;
      long slowDeadline = now + SLOW_NODE_WITHIN_NANOS;
      // the nodes that answered in time last time first; one that overran its last call gets a
      // short wait only: enough for it to answer once it goes on, and a node still hung (its
      // call before ended by redis.socketTimeout) costs the others that, not the whole wait
      sent.sort((a, b) -> Boolean.compare(a.lane.slow, b.lane.slow));
      for (Sent<T> s : sent) {
        T[] answered = s.await((s.lane.slow ? slowDeadline : deadline) - System.nanoTime());
        for (int k = 0; k < s.at.size(); k++) {
          out[s.at.get(k)] = answered == null ? inFlight.apply(s.lane.inFlight) : answered[k];
        }
      }
      return java.util.Arrays.asList(out);
    }
  }

  /**
   * Sends each node's share of the commands, the one on {@code route.get(i)}'s node (its slot) at
   * index i, on that node's lane, unless the lane still waits for the node; returns at once.
   */
  private <T> Pending<T> send(List<String> route, boolean readOnly, NodeCommands<T> commands, IntFunction<T[]> array,
      Function<NodeInFlightException, T> inFlight, Function<JedisException, T> failed, Runnable nodeLost) {
    return dispatch(route, readOnly, (slot, at) -> onNode(slot, at, commands, array, failed, nodeLost), array,
        inFlight, failed, nodeLost);
  }

  /**
   * Hands each node's share of the indexes of {@code route} (the one on {@code route.get(i)}'s
   * node, its slot, at index i) to {@code onLane} on that node's lane, unless the lane still waits
   * for the node; returns at once. {@code onLane} gets the share's first slot and its indexes.
   */
  private <T> Pending<T> dispatch(List<String> route, boolean readOnly, BiFunction<Integer, List<Integer>, T[]> onLane,
      IntFunction<T[]> array, Function<NodeInFlightException, T> inFlight, Function<JedisException, T> failed,
      Runnable nodeLost) {
    Map<HostAndPort, List<Integer>> byNode = new LinkedHashMap<>();
    T[] out = array.apply(route.size());
    for (int i = 0; i < route.size(); i++) {
      int slot = JedisClusterCRC16.getSlot(route.get(i));
      HostAndPort node = provider.getNode(slot);
      if (node == null) {
        // the client's slot map has no master for it (a slot left uncovered): as a lost node
        out[i] = failed.apply(new JedisConnectionException("no Redis Cluster master serves slot " + slot
            + " in the client's slot map (it is read again)"));
        nodeLost.run();
        continue;
      }
      byNode.computeIfAbsent(node, n -> new ArrayList<>(2)).add(i);
    }
    List<Sent<T>> sent = new ArrayList<>(byNode.size());
    for (Map.Entry<HostAndPort, List<Integer>> group : byNode.entrySet()) {
      NodeLane lane = lanes.computeIfAbsent(group.getKey(), NodeLane::new);
      List<Integer> at = group.getValue();
      if (!lane.take(readOnly)) {
        for (int i : at) {
          out[i] = inFlight.apply(lane.inFlight);
        }
        continue;
      }
      CompletableFuture<T[]> answer = new CompletableFuture<>();
      int slot = JedisClusterCRC16.getSlot(route.get(at.get(0)));
      lane.thread.execute(() -> lane.run(answer, () -> onLane.apply(slot, at)));
      sent.add(new Sent<>(lane, at, answer, array, failed));
    }
    return new Pending<>(out, sent, inFlight);
  }

  /** One node's commands in one pipeline on a connection of that node (run on its lane). */
  private <T> T[] onNode(int slot, List<Integer> at, NodeCommands<T> commands, IntFunction<T[]> array,
      Function<JedisException, T> failed, Runnable nodeLost) {
    java.util.function.Supplier<T[]> replies;
    try (Connection c = cluster.getConnectionFromSlot(slot)) {
      Pipeline pipeline = new Pipeline(c);
      replies = commands.queue(pipeline, at);
      pipeline.sync();
    } catch (JedisConnectionException e) {
      nodeLost.run();
      T[] out = array.apply(at.size());
      java.util.Arrays.fill(out, failed.apply(e));
      return out;
    }
    return replies.get();
  }

  private record Sent<T>(NodeLane lane, List<Integer> at, CompletableFuture<T[]> answer, IntFunction<T[]> array,
      Function<JedisException, T> failed) {
    /** The answers, or null when the node has not answered within {@code waitNanos}. */
    T[] await(long waitNanos) {
      try {
        return answer.get(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        lane.overran();
        return null;
      } catch (ExecutionException e) {
        JedisException failure = e.getCause() instanceof JedisException j ? j
            : new JedisException("calls failed on " + lane.node, e.getCause());
        T[] out = array.apply(at.size());
        java.util.Arrays.fill(out, failed.apply(failure));
        return out;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }
}
