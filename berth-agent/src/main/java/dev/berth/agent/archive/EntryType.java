package dev.berth.agent.archive;

/** The three kinds of entry an archive may hold; everything else is refused. */
public enum EntryType {
  FILE("file"),
  DIR("dir"),
  SYMLINK("symlink");

  private final String json;

  EntryType(String json) {
    this.json = json;
  }

  /** The manifest spelling: {@code file}, {@code dir} or {@code symlink}. */
  public String json() {
    return json;
  }
}
