package dev.delayq.supervisor;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One child as {@code status} shows it; the JSON form is a stable interface for scripts.
 * {@code pid} is null when no process runs, {@code lastExitCode} null before the first exit.
 */
@JsonPropertyOrder({"name", "role", "pid", "state", "restarts", "lastExitCode", "uptimeMs"})
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ChildView(String name, String role, Long pid, String state, int restarts,
    Integer lastExitCode, long uptimeMs) {}
