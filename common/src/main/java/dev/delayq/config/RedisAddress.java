package dev.delayq.config;

/**
 * RedisAddress checks where {@link DelayqConfig.Redis} says the jobs live: one url, Sentinels and
 * the master name they watch, or a Redis Cluster's seed nodes, and TLS files only where TLS is on.
 * Each failure names the key and what to write instead; the values come trimmed, null as empty.
 */
final class RedisAddress {
  private RedisAddress() {}

  static void check(String url, String sentinels, String masterName, String cluster, String tlsCaFile,
      String tlsCertFile, String tlsKeyFile) {
    if (!url.isEmpty() && !url.startsWith("redis://") && !url.startsWith("rediss://")) {
      throw new IllegalArgumentException(
          "url: must start with redis:// or rediss:// (or be empty for the embedded Redis)");
    }
    if (tlsCertFile.isEmpty() != tlsKeyFile.isEmpty()) {
      throw new IllegalArgumentException((tlsCertFile.isEmpty() ? "tlsCertFile" : "tlsKeyFile")
          + ": a client certificate needs both tlsCertFile and tlsKeyFile");
    }
    if (!url.startsWith("rediss://")) {
      for (String[] key : new String[][] {{"tlsCaFile", tlsCaFile}, {"tlsCertFile", tlsCertFile}}) {
        if (!key[1].isEmpty()) {
          throw new IllegalArgumentException(key[0] + ": set, but TLS is off: the url must start "
              + "with rediss:// (with sentinels too: rediss://[user:password@]MASTER_NAME)");
        }
      }
    }
    hostPorts("sentinels", sentinels, "a comma-separated list, e.g. 10.0.0.1:26379,10.0.0.2:26379");
    if (!sentinels.isEmpty() && masterName.isEmpty()) {
      throw new IllegalArgumentException("masterName: required with sentinels (the name the "
          + "Sentinels monitor the master under, as in `sentinel monitor NAME host port quorum`)");
    }
    hostPorts("cluster", cluster, "a comma-separated list of seed nodes, e.g. 10.0.0.1:7000,10.0.0.2:7000");
    if (!cluster.isEmpty() && !sentinels.isEmpty()) {
      throw new IllegalArgumentException("cluster: set together with sentinels: a Redis Cluster "
          + "fails over by itself, without Sentinels; give one of the two");
    }
    if (sentinels.isEmpty() && !masterName.isEmpty()) {
      throw new IllegalArgumentException("masterName: set, but sentinels is empty");
    }
  }

  private static void hostPorts(String key, String nodes, String example) {
    for (String node : DelayqConfig.Redis.sentinelList(nodes)) {
      if (!node.matches("[^\\s:,]+:\\d{1,5}")) {
        throw new IllegalArgumentException(key + ": '" + node + "' is not host:port (" + example + ")");
      }
    }
  }
}
