package dev.berth.agent.proxy.gate;

import java.io.InputStream;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a gated session's CLI may ask of its provider. The gate holds tool calls in the model's
 * answers, but a tool the provider runs itself (Anthropic's {@code web_fetch_*}, {@code
 * web_search_*}, {@code code_execution_*}, its MCP connector's {@code mcp_servers}; the Responses
 * API's {@code web_search}, {@code mcp}, {@code code_interpreter}, {@code file_search}, {@code
 * computer_use_preview}, {@code image_generation}...) never comes back as a call for the client to
 * run: the provider would reach whatever it names without the gateway being asked. So, when the
 * gate is on, the proxy forwards only the paths the CLIs use, and reads every model request's body
 * before it goes upstream: a tool that is not the client's own refuses the request (400).
 *
 * <p>The body is read with Jackson's streaming parser, token by token: a request may be up to 64
 * MiB and the proxy's heap is 64 MiB, so no tree is built.
 */
public final class GatedRequests {

  /** The model-call paths, whose bodies are checked: Anthropic's, Responses and Chat. */
  private static final Set<String> CHECKED =
      Set.of("/v1/messages", "/v1/messages/count_tokens", "/v1/responses", "/v1/chat/completions");

  /**
   * Tool types the client runs and the gate holds in the answer. Anthropic: a tool without a type,
   * or {@code custom}. Responses: the items {@link ResponsesGate} holds ({@code function_call},
   * {@code custom_tool_call}, {@code local_shell_call}). Chat: {@code function} and {@code custom}.
   */
  private static final Set<String> ANTHROPIC_CLIENT_TOOLS = Set.of("custom");

  private static final Set<String> OPENAI_CLIENT_TOOLS =
      Set.of("function", "custom", "local_shell");

  /**
   * A Responses {@code namespace} groups function tools under a name (Codex sends its sub-agent
   * tools so): it is no tool itself, its {@code tools} are checked one by one. One level only.
   */
  private static final String NAMESPACE = "namespace";

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private GatedRequests() {}

  /**
   * Why {@code method} on {@code path} is not forwarded for a gated session, if it is not: only the
   * model calls and the model lists go through; anything else (files, batches, stored responses,
   * skills...) could carry or start work the gate never sees.
   */
  public static Optional<String> pathRefusal(String method, String path) {
    boolean allowed =
        switch (method) {
          case "POST" -> CHECKED.contains(path);
          case "GET", "HEAD" -> path.equals("/v1/models") || path.startsWith("/v1/models/");
          default -> false;
        };
    if (allowed) {
      return Optional.empty();
    }
    return Optional.of(
        "berth: the approval gate forwards only model calls (POST /v1/messages,"
            + " /v1/messages/count_tokens, /v1/responses, /v1/chat/completions; GET /v1/models),"
            + " not "
            + method
            + " "
            + path);
  }

  /**
   * The refusal as the body of an error answer, in the shape Anthropic's API uses (the Responses
   * clients read its {@code error.message} as well), so the CLI shows the message.
   */
  public static String errorBody(String message) {
    var body = MAPPER.createObjectNode();
    body.put("type", "error");
    body.putObject("error").put("type", "invalid_request_error").put("message", message);
    return MAPPER.writeValueAsString(body);
  }

  /** Whether the body of {@code method} on {@code path} is read by {@link #toolRefusal} first. */
  public static boolean checksBody(String method, String path) {
    return method.equals("POST") && CHECKED.contains(path);
  }

  /**
   * Why the model request {@code body} to {@code path} is refused, if it is: it declares a tool the
   * provider runs (a {@code tools} entry whose {@code type} is not a client tool's), a non-empty
   * {@code mcp_servers}, Chat's {@code web_search_options}, or it is not a JSON object. Every
   * occurrence of a repeated key is checked, whichever one the provider would take.
   */
  public static Optional<String> toolRefusal(String path, InputStream body) {
    boolean anthropic = path.startsWith("/v1/messages");
    Set<String> refused = new LinkedHashSet<>();
    try (JsonParser parser = MAPPER.createParser(body)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return Optional.of(
            "berth: the approval gate accepts only a JSON object as a model request");
      }
      while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        switch (name) {
          case "tools" -> tools(parser, value, anthropic, 0, refused);
          case "mcp_servers" -> mcpServers(parser, value, refused);
          case "web_search_options" -> {
            if (value != JsonToken.VALUE_NULL) {
              refused.add("web_search_options");
            }
            parser.skipChildren();
          }
          default -> parser.skipChildren();
        }
      }
      if (parser.currentToken() != JsonToken.END_OBJECT || parser.nextToken() != null) {
        return Optional.of(
            "berth: the approval gate accepts only a JSON object as a model request");
      }
    } catch (JacksonException e) {
      return Optional.of(
          "berth: the approval gate cannot read the model request as JSON: "
              + e.getOriginalMessage());
    }
    if (refused.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "berth: the approval gate refuses provider-run tools ("
            + String.join(", ", refused)
            + "): the provider would run them without asking the gateway; turn them off in the"
            + " CLI, or use a session whose policy is off");
  }

  /** Anthropic's MCP connector: any server, or anything but an empty list, is refused. */
  private static void mcpServers(JsonParser parser, JsonToken value, Set<String> refused) {
    if (value == JsonToken.VALUE_NULL) {
      return;
    }
    if (value != JsonToken.START_ARRAY) {
      refused.add("mcp_servers");
      parser.skipChildren();
      return;
    }
    JsonToken server;
    while ((server = parser.nextToken()) != JsonToken.END_ARRAY && server != null) {
      refused.add("mcp_servers");
      parser.skipChildren();
    }
  }

  /** The {@code tools} array: each entry's {@code type} (every one, if repeated) is checked. */
  private static void tools(
      JsonParser parser, JsonToken value, boolean anthropic, int depth, Set<String> refused) {
    if (value != JsonToken.START_ARRAY) {
      parser.skipChildren();
      return;
    }
    JsonToken entry;
    while ((entry = parser.nextToken()) != JsonToken.END_ARRAY && entry != null) {
      if (entry != JsonToken.START_OBJECT) {
        parser.skipChildren();
        continue;
      }
      boolean typed = false;
      while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
        String field = parser.currentName();
        JsonToken fieldValue = parser.nextToken();
        if (field.equals("type")) {
          typed = true;
          String type = fieldValue == JsonToken.VALUE_STRING ? parser.getString() : "(not a name)";
          boolean grouping = !anthropic && type.equals(NAMESPACE) && depth == 0;
          if (!grouping
              && !(anthropic ? ANTHROPIC_CLIENT_TOOLS : OPENAI_CLIENT_TOOLS).contains(type)) {
            refused.add(type);
          }
        } else if (field.equals("tools") && !anthropic && depth == 0) {
          // A namespace's own tools (checked whatever the entry's type turns out to be).
          tools(parser, fieldValue, false, depth + 1, refused);
          continue;
        }
        parser.skipChildren();
      }
      if (!typed && !anthropic) {
        refused.add("(no type)");
      }
    }
  }
}
