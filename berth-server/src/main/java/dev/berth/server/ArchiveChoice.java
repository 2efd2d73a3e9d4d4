package dev.berth.server;

import dev.berth.archive.s3.S3ArchiveSettings;
import dev.berth.archive.s3.S3ArchiveUri;
import dev.berth.core.error.InvalidValueException;
import java.util.Objects;

/**
 * Where suspended sessions' archives go ({@code --archive}): the data directory, the default; or an
 * S3-compatible bucket, which every replica reaches and which outlives any machine.
 */
public sealed interface ArchiveChoice {

  /** {@code archives/} in the data directory. */
  record Filesystem() implements ArchiveChoice {}

  /** An S3 bucket and prefix; credentials from the AWS SDK's default chain. */
  record S3(S3ArchiveSettings settings) implements ArchiveChoice {
    public S3 {
      Objects.requireNonNull(settings, "settings");
    }
  }

  /**
   * Reads an {@code --archive} value: {@code filesystem}, or {@code s3://bucket/prefix?…}.
   *
   * @throws InvalidValueException naming what is wrong and what to write instead
   */
  static ArchiveChoice parse(String value) {
    if (value.equals("filesystem")) {
      return new Filesystem();
    }
    if (value.toLowerCase(java.util.Locale.ROOT).startsWith("s3://")) {
      try {
        return new S3(S3ArchiveUri.parse(value));
      } catch (IllegalArgumentException e) {
        throw new InvalidValueException("--archive " + e.getMessage());
      }
    }
    throw new InvalidValueException(
        "--archive must be filesystem (the data directory, the default) or an S3 URL such as"
            + " s3://bucket/berth?endpoint=https://s3.internal&region=us-east-1, was "
            + ChoiceText.shape(value));
  }
}
