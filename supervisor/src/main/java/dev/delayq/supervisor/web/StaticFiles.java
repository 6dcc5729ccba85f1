package dev.delayq.supervisor.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The dashboard page: a few files shipped in the jar under {@code dev/delayq/web/}, read once.
 * Nothing is built and nothing comes from elsewhere.
 */
final class StaticFiles {
  /** A file's bytes and content type. */
  record File(byte[] body, String contentType) {}

  private static final String ROOT = "/dev/delayq/web/";
  private final Map<String, File> files;

  StaticFiles() {
    File svg = load("favicon.svg", "image/svg+xml");
    files = Map.of(
        "", load("index.html", "text/html; charset=utf-8"),
        "index.html", load("index.html", "text/html; charset=utf-8"),
        "app.js", load("app.js", "text/javascript; charset=utf-8"),
        "charts.js", load("charts.js", "text/javascript; charset=utf-8"),
        "app.css", load("app.css", "text/css; charset=utf-8"),
        "favicon.svg", svg,
        "favicon.ico", svg);
  }

  /** The file at {@code path} (without its leading slash), or null. */
  File get(String path) {
    return files.get(path);
  }

  private static File load(String name, String type) {
    try (InputStream in = StaticFiles.class.getResourceAsStream(ROOT + name)) {
      if (in == null) {
        throw new IllegalStateException(ROOT + name + " is missing from the jar");
      }
      return new File(in.readAllBytes(), type);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
