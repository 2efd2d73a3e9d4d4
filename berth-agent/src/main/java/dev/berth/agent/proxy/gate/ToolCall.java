package dev.berth.agent.proxy.gate;

import dev.berth.agent.agentcli.StreamRedactor;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One tool call a gate decides on: the tool's name, the digest of its arguments exactly as the
 * model wrote them ({@code sha256:<64 hex>}, what the decision binds to), and a preview a person
 * reads: the arguments as JSON when they are JSON of at most {@link #PREVIEW} bytes, else their
 * text cut there; the provider's secrets are redacted from the preview (never from the digest).
 */
public record ToolCall(String tool, String argumentsDigest, JsonNode arguments) {

  /** The most of a call's arguments the preview holds, in bytes of JSON. */
  public static final int PREVIEW = 4 << 10;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  public ToolCall {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(argumentsDigest, "argumentsDigest");
    Objects.requireNonNull(arguments, "arguments");
  }

  /** The call of {@code tool} with {@code arguments} as the model wrote them. */
  public static ToolCall of(String tool, String arguments, List<String> secrets) {
    String safe = redacted(arguments, secrets);
    JsonNode preview = null;
    if (safe.getBytes(StandardCharsets.UTF_8).length <= PREVIEW) {
      try {
        preview = JSON.readTree(safe.isBlank() ? "{}" : safe);
      } catch (JacksonException e) {
        preview = null; // not JSON: shown as text
      }
    }
    if (preview == null) {
      preview = JSON.getNodeFactory().stringNode(cut(safe));
    }
    return new ToolCall(tool, digest(arguments), preview);
  }

  /** {@code sha256:} and the hex digest of {@code text}'s UTF-8 bytes. */
  public static String digest(String text) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static String redacted(String text, List<String> secrets) {
    StreamRedactor redactor = new StreamRedactor(secrets);
    return redactor.redact(text) + redactor.finish();
  }

  /**
   * At most {@link #PREVIEW} bytes of {@code text}, never cutting a character in two; a cut one
   * ends with a line that says so, so that nobody approves arguments believing they saw them all.
   */
  private static String cut(String text) {
    int total = text.getBytes(StandardCharsets.UTF_8).length;
    if (total <= PREVIEW) {
      return text;
    }
    String note =
        "\n… [berth: preview cut; the arguments are "
            + total
            + " bytes and the decision covers all of them]";
    int room = PREVIEW - note.getBytes(StandardCharsets.UTF_8).length;
    int bytes = 0;
    int i = 0;
    while (i < text.length()) {
      int cp = text.codePointAt(i);
      int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
      if (bytes + size > room) {
        return text.substring(0, i) + note;
      }
      bytes += size;
      i += Character.charCount(cp);
    }
    return text;
  }
}
