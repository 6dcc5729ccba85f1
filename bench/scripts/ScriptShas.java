// Prints "<sha> <script>" for every delayq Lua script, as the built client computes the SHA (the
// includes expanded), so drain-profile.sh can name the EVALSHA entries of the slow log.
// Run: java -cp bench/target/lib/delayq-common-*.jar bench/scripts/ScriptShas.java
public final class ScriptShas {
  public static void main(String[] args) {
    for (dev.delayq.redis.Script s : dev.delayq.redis.Script.values()) {
      System.out.println(s.sha() + " " + s);
    }
  }
}
