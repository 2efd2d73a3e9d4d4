package dev.berth.agent.host;

import dev.berth.protocol.json.AgentJson;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a restore did, as the restore route answers it. It is also the reply the local contract
 * records for the restore's operation, so that a repeated operation answers exactly as the first.
 *
 * @param runtime the runtime the archive was restored into
 * @param generation the archive generation restored
 * @param bytes the archive's size as it arrived (compressed)
 * @param files the entries restored (directories, files and symlinks)
 * @param outputNextOffset where the restored output log continues: the checkpointed log's end,
 *     before the restored shell wrote anything
 */
public record Restored(
    String runtime, long generation, long bytes, long files, long outputNextOffset) {

  private static final JsonMapper JSON = AgentJson.mapper();

  public Restored {
    Objects.requireNonNull(runtime, "runtime");
  }

  String toReply() {
    return JSON.writeValueAsString(this);
  }

  static Restored fromReply(String reply) {
    return JSON.readValue(reply, Restored.class);
  }
}
