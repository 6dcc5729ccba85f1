package dev.delayq.supervisor.control;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The control socket's protocol: UTF-8 lines, each one JSON object. The client sends one
 * request ({@code {"cmd":"status"}}, {@code {"cmd":"reload","workers":4}},
 * {@code {"cmd":"stop","timeoutMs":30000}}); the server answers with zero or more
 * {@code {"progress":"..."}} lines and then one final line holding {@code "ok"}: true with the
 * result, or false with {@code "error"}. Every final line carries the supervisor's {@code pid}.
 */
public final class Protocol {
  public static final ObjectMapper JSON = new ObjectMapper();

  private Protocol() {}
}
