package dev.berth.cli;

import picocli.CommandLine.Option;

/** {@code -o table|json} of the commands that print sessions. */
final class FormatOption {

  @Option(
      names = {"-o", "--output"},
      paramLabel = "table|json",
      defaultValue = "table",
      converter = OutputFormat.Converter.class,
      description = "table (default): aligned columns; json: the server's JSON, one document.")
  OutputFormat format = OutputFormat.TABLE;
}
