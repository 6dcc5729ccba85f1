package dev.delayq.cli;

import picocli.CommandLine.Parameters;

/**
 * The id argument of the commands that act on one batch (batch inspect, batch cancel), each
 * mixing it in. Labelled as a job's id ({@link JobId#LABEL}): a batch id follows the same rules
 * (short options do not cluster, a dashed id goes after '--').
 */
final class BatchId {
  @Parameters(paramLabel = JobId.LABEL, description = "The batch's id.")
  String id;
}
