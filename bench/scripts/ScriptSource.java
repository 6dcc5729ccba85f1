// Prints a delayq Lua script as the built client sends it (its includes expanded), so a tree's
// script can be run beside another tree's (EnqueueCost.java).
// Run: java -cp <tree>/bench/target/lib/'*' bench/scripts/ScriptSource.java ENQUEUE > enqueue.lua
public final class ScriptSource {
  public static void main(String[] args) {
    System.out.print(dev.delayq.redis.Script.valueOf(args[0]).source());
  }
}
