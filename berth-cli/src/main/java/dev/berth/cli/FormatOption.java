package dev.berth.cli;

import picocli.CommandLine.Option;

/** {@code -o table|wide|json|yaml} of the commands that print what the server answers. */
final class FormatOption {

  @Option(
      names = {"-o", "--output"},
      paramLabel = "table|wide|json|yaml",
      defaultValue = "table",
      converter = OutputFormat.Converter.class,
      description =
          "table (default): aligned columns; wide: more columns; json or yaml: the server's"
              + " document.")
  OutputFormat format = OutputFormat.TABLE;
}
