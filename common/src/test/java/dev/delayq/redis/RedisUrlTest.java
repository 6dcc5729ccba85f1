package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedisUrlTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "redis://app:app-pass@host:6379       | redis://app:***@host:6379",
      "redis://:s3cret@127.0.0.1:6390/2     | redis://:***@127.0.0.1:6390/2",
      "rediss://u:p%2F%40%3A%25x@h:6380     | rediss://u:***@h:6380",
      "redis://:pa/ss@word@host:6379        | redis://:***@host:6379",
      "redis://:a@b/c:d%e@host:6379/0       | redis://:***@host:6379/0",
      "redis://u:@:/%@/@host:1              | redis://u:***@host:1",
      "redis://justapassword@host:6379      | redis://***@host:6379",
      "redis://host:6379/1                  | redis://host:6379/1",
      ":secret@host:6379                    | :***@host:6379"})
  void passwordIsReplacedWhateverItHolds(String url, String shown) {
    assertEquals(shown, RedisUrl.redact(url));
    assertEquals(shown, RedisConnector.redact(url), "the connector's redaction is the same");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"p/@:%X7q", "/@:%/@:%", "@@@", "a:b:c"})
  void noPartOfAPasswordFullOfSeparatorsIsLeft(String password) {
    String shown = RedisUrl.redact("redis://:" + password + "@127.0.0.1:6390");
    assertEquals("redis://:***@127.0.0.1:6390", shown);
    assertFalse(shown.contains(password));
  }
}
