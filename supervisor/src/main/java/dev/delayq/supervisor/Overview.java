package dev.delayq.supervisor;

import java.util.List;

/**
 * The supervisor's child table at one moment. {@code workers}: the pool size asked for (workers
 * being removed by a scale-down are listed in {@code children} but not counted).
 */
public record Overview(List<ChildView> children, int workers) {}
