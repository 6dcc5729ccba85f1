package dev.delayq.supervisor.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.delayq.DelayQueue;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.LogText;
import dev.delayq.redis.Admin;
import dev.delayq.redis.DeadBrowser;
import dev.delayq.redis.JobBrowser;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RecordPreviews;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The supervisor's HTTP port: Prometheus metrics at {@code /metrics}, the dashboard at {@code /}
 * and its JSON API under {@code /api/}. Its own threads and its own Redis connections, so a slow
 * scrape never holds up the supervisor; every request passes the {@link Guard} first. Slow clients
 * get a deadline and threads of their own ({@link SlowClientLimits}), and each peer a share of the
 * connections when the port is reachable from other hosts ({@link PeerGate}); requests are
 * answered a few at a time ({@link HandlerPermits}).
 */
public final class WebServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WebServer.class);

  /** After the last running request was answered, before the sockets close. */
  private static final long ANSWER_GRACE_MS = 500;

  /** Pending connections the port's listen queue holds. */
  private static final int BACKLOG = 64;

  private final HttpServer server;
  /** In front of the server when the port is reachable from other hosts; else null. */
  private final PeerGate gate;
  private final ExecutorService threads;
  private final HandlerPermits permits = new HandlerPermits();
  private final RedisConnection redis;
  private final Guard guard;
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ExpositionFormats formats = ExpositionFormats.init();
  private final StaticFiles files = new StaticFiles();
  /** Per queue served, in order: its reads, actions, job browser, schedules and producer. */
  private final Map<String, QueueApis> queues = new java.util.LinkedHashMap<>();
  private final String mainQueue;
  private final String url;

  private WebServer(DelayqConfig config, String redisUrl, String token, Steering steering, HttpServer server,
      PeerGate gate) {
    this.server = server;
    this.gate = gate;
    this.redis = RedisConnector.connect(config, redisUrl, "delayq-web", HandlerPermits.PERMITS);
    this.guard = new Guard(token, config.web().loopback());
    this.mainQueue = config.queue().name();
    List<QueueCollector.Source> sources = new java.util.ArrayList<>();
    for (DelayqConfig queue : config.perQueue()) {
      Keys keys = Keys.of(queue);
      Admin admin = new RedisBroker(redis, keys).withLimits(queue).admin(queue.worker().poisonPillAfter());
      DelayQueue producer = new DelayQueue(new RedisBroker(redis, keys), queue.queue().maxPayloadBytes(),
          queue.retry().maxAttempts());
      queues.put(queue.queue().name(), new QueueApis(
          new ReadApi(steering, admin, new DeadBrowser(redis.client(), keys, RecordPreviews.DEFAULT_PREVIEW_BYTES),
              new Series(redis.client(), keys), new DepthHistory(), System::currentTimeMillis, config.queueNames()),
          new ActionApi(steering, admin), new JobApi(producer, new JobBrowser(redis.client(), keys), admin),
          new ScheduleApi(producer, queue.retry().maxAttempts()), producer));
      sources.add(new QueueCollector.Source(keys, admin, new TypeCap(config.web().maxMetricTypes())));
    }
    String host = config.web().bind().contains(":") && !config.web().bind().startsWith("[")
        ? "[" + config.web().bind() + "]" : config.web().bind();
    this.url = "http://" + host + ":" + (gate != null ? gate.port() : server.getAddress().getPort()) + "/";
    registry.register(new QueueCollector(sources));
    registry.register(new ChildCollector(steering));
    JvmMetrics.builder().register(registry);
    this.threads = SlowClientLimits.readers();
    server.setExecutor(threads);
    server.createContext("/", this::serve);
  }

  /**
   * Starts serving unless {@code web.enabled} is false. A port that cannot be had is logged and
   * the supervisor runs on without metrics and dashboard: the queue matters more than its view.
   *
   * @param redisUrl the URL of the queue's Redis, password included
   * @param token what every {@code /api/} request must carry as {@code Authorization: Bearer}
   */
  public static Optional<WebServer> startIfEnabled(DelayqConfig config, String redisUrl, String token,
      Steering steering) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("the dashboard needs a token");
    }
    DelayqConfig.Web web = config.web();
    if (!web.enabled()) {
      log.info("web: off (web.enabled: false): no /metrics, no dashboard");
      return Optional.empty();
    }
    HttpServer server;
    PeerGate gate = null;
    try {
      SlowClientLimits.apply();
      InetSocketAddress front = new InetSocketAddress(InetAddress.getByName(web.bind()), web.port());
      if (web.loopback()) {
        server = HttpServer.create(front, BACKLOG);
      } else {
        // reachable from other hosts: each peer gets a share of the port (PeerGate says why)
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), BACKLOG);
        try {
          gate = PeerGate.open(front, BACKLOG, server.getAddress());
        } catch (IOException e) {
          server.stop(0);
          throw e;
        }
      }
    } catch (IOException e) {
      log.error("web: cannot listen on {}:{} ({}): no /metrics and no dashboard; set web.port "
          + "(DELAYQ_WEB_PORT) to a free port, or web.enabled: false", web.bind(), web.port(), e.toString());
      return Optional.empty();
    }
    WebServer w;
    try {
      w = new WebServer(config, redisUrl, token, steering, server, gate);
    } catch (RuntimeException e) {
      if (gate != null) {
        gate.close();
      }
      server.stop(0);
      throw e;
    }
    server.start();
    log.info("web: dashboard {} (its API needs the token of run/web.token; `bin/delayq-supervisor status` "
        + "prints the URL with it) and metrics {}metrics", w.url, w.url);
    return Optional.of(w);
  }

  /** The dashboard's address, {@code http://127.0.0.1:6391/}. */
  public String url() {
    return url;
  }

  private void serve(HttpExchange ex) throws IOException {
    try {
      if (!permits.run(() -> answer(ex))) {
        Http.error(ex, 503, "busy: " + HandlerPermits.PERMITS + " requests were being answered for "
            + HandlerPermits.WAIT_SECONDS + "s; try again");
      }
    } finally {
      ex.close();
    }
  }

  private void answer(HttpExchange ex) throws IOException {
    String method = ex.getRequestMethod();
    try {
      List<String> path = Http.segments(ex);
      boolean api = !path.isEmpty() && path.get(0).equals("api");
      Guard.Refusal refusal = guard.check(method, api, ex.getRequestHeaders());
      if (refusal != null) {
        if (refusal.status() == 401) {
          ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"delayq\"");
        }
        Http.error(ex, refusal.status(), refusal.message());
        return;
      }
      if (api) {
        api(ex, method, path.subList(1, path.size()));
      } else if (path.equals(List.of("metrics"))) {
        onlyGet(method);
        metrics(ex);
      } else {
        onlyGet(method);
        StaticFiles.File file = files.get(String.join("/", path));
        if (file == null) {
          throw new Http.Failure(404, "not found: " + ex.getRequestURI().getPath());
        }
        Http.send(ex, 200, file.contentType(), file.body());
      }
    } catch (Http.Failure f) {
      Http.error(ex, f.status, f.getMessage());
    } catch (JedisException e) {
      Http.error(ex, 503, "Redis: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      Http.error(ex, 400, e.getMessage());
    } catch (RuntimeException e) {
      log.warn("web: {} {} failed", LogText.escape(method), LogText.escape(ex.getRequestURI()), e);
      Http.error(ex, 500, e.toString());
    } finally {
      ex.close();
    }
  }

  private void api(HttpExchange ex, String method, List<String> path) throws IOException {
    Map<String, String> q = Http.query(ex);
    QueueApis apis = queueOf(q);
    ReadApi reads = apis.reads();
    ActionApi actions = apis.actions();
    JobApi jobs = apis.jobs();
    ScheduleApi scheduleApi = apis.schedules();
    String route = path.isEmpty() ? "" : path.get(0);
    int n = path.size();
    if (method.equals("GET") || method.equals("HEAD")) {
      Object answer = switch (n == 1 ? route : "?") {
        case "status" -> reads.status();
        case "series" -> reads.series(Http.intParam(q, "seconds", 300, 10, Series.MAX_SECONDS));
        case "dead" -> reads.dead(q.get("type"), Http.intParam(q, "limit", 50, 1, 1000));
        case "forecast" -> reads.forecast(Http.intParam(q, "minutes", 60, 1, 1440));
        case "jobs" -> jobs.list(q);
        case "schedules" -> scheduleApi.list();
        default -> throw new Http.Failure(notFoundOr405(path, "POST"), "no GET " + ex.getRequestURI().getPath());
      };
      Http.json(ex, 200, answer);
    } else if (method.equals("POST")) {
      Object answer;
      if (n == 1 && route.equals("resize")) {
        answer = actions.resize(Http.body(ex));
      } else if (n == 3 && route.equals("children") && path.get(2).equals("restart")) {
        answer = actions.restart(path.get(1));
      } else if (n == 2 && route.equals("dead") && path.get(1).equals("retry-all")) {
        answer = actions.retryAll();
      } else if (n == 2 && route.equals("dead") && path.get(1).equals("purge")) {
        answer = actions.purge(Http.body(ex));
      } else if (n == 1 && route.equals("pause")) {
        answer = actions.pause(Http.body(ex));
      } else if (n == 1 && route.equals("resume")) {
        answer = actions.resume(Http.body(ex));
      } else if (n == 3 && route.equals("dead") && path.get(2).equals("retry")) {
        answer = actions.retry(path.get(1));
      } else if (n == 1 && route.equals("schedules")) {
        answer = scheduleApi.upsert(Http.body(ex));
      } else if (n == 3 && route.equals("schedules")) {
        answer = scheduleApi.act(path.get(1), path.get(2));
      } else if (n == 3 && route.equals("jobs")) {
        answer = jobs.act(path.get(1), path.get(2), Http.body(ex));
      } else {
        throw new Http.Failure(notFoundOr405(path, "GET"), "no POST " + ex.getRequestURI().getPath());
      }
      Http.json(ex, 200, answer);
    } else {
      throw new Http.Failure(405, method + " is not served here (GET, POST)");
    }
  }

  /** The queue a request names with {@code ?queue=} (the dashboard's picker), else queue.name's. */
  private QueueApis queueOf(Map<String, String> query) {
    String name = query.getOrDefault("queue", "");
    QueueApis apis = queues.get(name.isEmpty() ? mainQueue : name);
    if (apis == null) {
      throw new Http.Failure(404, "no queue " + LogText.escape(name) + " here (this system serves "
          + String.join(", ", queues.keySet()) + ")");
    }
    return apis;
  }

  /** One queue's part of the API. */
  private record QueueApis(ReadApi reads, ActionApi actions, JobApi jobs, ScheduleApi schedules, DelayQueue producer) {}

  /** 405 when the path exists for the other method, else 404. */
  private static int notFoundOr405(List<String> path, String otherMethod) {
    List<String> gets = List.of("status", "series", "dead", "forecast", "jobs", "schedules");
    boolean other = otherMethod.equals("GET") ? path.size() == 1 && gets.contains(path.get(0))
        : path.size() == 1 && List.of("resize", "pause", "resume").contains(path.get(0));
    return other ? 405 : 404;
  }

  private static void onlyGet(String method) {
    if (!method.equals("GET") && !method.equals("HEAD")) {
      throw new Http.Failure(405, method + " is not served here (GET)");
    }
  }

  /** The registry in the format the scraper asks for: OpenMetrics, else Prometheus text 0.0.4. */
  private void metrics(HttpExchange ex) throws IOException {
    String accept = ex.getRequestHeaders().getFirst("Accept");
    ExpositionFormatWriter writer = accept != null && accept.contains("application/openmetrics-text")
        ? formats.getOpenMetricsTextFormatWriter() : formats.getPrometheusTextFormatWriter();
    ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
    writer.write(body, registry.scrape());
    Http.send(ex, 200, writer.getContentType(), body.toByteArray());
  }

  /**
   * Stops serving (running requests get a second to finish, and their answers half a second to
   * reach their clients) and closes its Redis connections. The wait is on this server's own
   * threads, not {@code HttpServer.stop(1)}: on JDK 17 that sleeps the whole second even with
   * nothing running, and kept every stopped supervisor alive for it. Idle, it closes at once.
   */
  @Override
  public void close() {
    if (gate != null) {
      gate.close(); // no new connection; those under way end as the server closes them
    }
    threads.shutdown(); // no new exchange starts; the running ones go on to their answer
    try {
      if (!threads.awaitTermination(100, TimeUnit.MILLISECONDS)) {
        threads.awaitTermination(1, TimeUnit.SECONDS);
        // an answer just written may still be on its way: closing its socket at once could cut it
        Thread.sleep(ANSWER_GRACE_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.stop(0);
    threads.shutdownNow();
    queues.values().forEach(q -> q.producer().close());
    redis.close();
  }
}
