package dev.delayq.config;

import java.util.regex.Pattern;

/**
 * What a job type may be: it names a handler, a limit, a pause scope and the key
 * {@code nohandler:<type>}, so producers, handlers, config and the operator side all hold it to
 * the one rule written here.
 */
public final class JobTypes {
  /** The rule, as error messages show it. */
  public static final String RULE = "[a-z0-9_.:-]{1,64}";
  private static final Pattern VALID = Pattern.compile(RULE);

  private JobTypes() {}

  /** True when {@code type} is a job type delayq takes (null is not). */
  public static boolean isValid(String type) {
    return type != null && VALID.matcher(type).matches();
  }
}
