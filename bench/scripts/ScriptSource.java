// Prints a delayq Lua script as the built client sends it (its includes expanded), so a tree's
// script can be run beside another tree's (EnqueueCost.java). With --preamble, only what every
// call runs before the script's own code (its includes' definitions), then `return 0`, for
// script-preamble.sh: the script's own code is what follows its last include line in its file,
// and the expanded text ends with it (each include is put in place of its line).
// Run: java -cp <tree>/bench/target/lib/'*' bench/scripts/ScriptSource.java [--preamble] ENQUEUE
import dev.delayq.redis.Script;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class ScriptSource {
  public static void main(String[] args) throws IOException {
    boolean preamble = args[0].equals("--preamble");
    Script script = Script.valueOf(args[preamble ? 1 : 0]);
    System.out.print(preamble ? preambleOf(script) : script.source());
  }

  private static String preambleOf(Script script) throws IOException {
    String raw;
    try (InputStream in = Script.class.getResourceAsStream("/dev/delayq/lua/" + script)) {
      raw = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Matcher include = Pattern.compile("(?m)^--@include \\w+$").matcher(raw);
    int ownStart = 0;
    while (include.find()) {
      ownStart = include.end();
    }
    String own = raw.substring(ownStart);
    if (!script.source().endsWith(own)) {
      throw new IllegalStateException(script + ": its own code is not the end of its expanded text");
    }
    return script.source().substring(0, script.source().length() - own.length()) + "\nreturn 0\n";
  }
}
