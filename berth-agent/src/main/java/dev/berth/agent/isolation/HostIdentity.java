package dev.berth.agent.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The agent's own uid and gid, and whether it is root. */
record HostIdentity(long uid, long gid) {
  boolean root() {
    return uid == 0;
  }

  /** This process's real uid and gid, from {@code /proc/self/status}; -1 each when unreadable. */
  static HostIdentity ofThisProcess() {
    try {
      long uid = -1;
      long gid = -1;
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          uid = Long.parseLong(line.split("\\s+")[2]);
        } else if (line.startsWith("Gid:")) {
          gid = Long.parseLong(line.split("\\s+")[2]);
        }
      }
      return new HostIdentity(uid, gid);
    } catch (IOException | RuntimeException e) {
      return new HostIdentity(-1, -1);
    }
  }
}
