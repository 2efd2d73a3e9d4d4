package dev.berth.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Where {@code berth server} finds an option the command line did not give: a {@code BERTH_*}
 * variable ({@code --idle-after} is {@code BERTH_IDLE_AFTER}), then the YAML file of {@code
 * --config} (or {@code BERTH_CONFIG}), whose keys are the long names without dashes ({@code
 * idle-after: 30m}), then the built-in default. A list takes a YAML list, or commas in a variable.
 *
 * <p>The file is read before the options are parsed (picocli asks for defaults first), so {@code
 * --config} is found by a look at the raw arguments. A file that cannot be read, is not a mapping,
 * or names an option that does not exist is refused by {@link #check}, with the key and the file
 * named: a misspelt key silently ignored is a setting silently lost.
 */
final class ServerDefaults implements CommandLine.IDefaultValueProvider {

  static final String CONFIG_VARIABLE = "BERTH_CONFIG";
  private static final String CONFIG_OPTION = "--config";

  private final Map<String, String> environment;
  private final Optional<Path> file;
  private final Map<String, String> fromFile;
  private final Optional<String> problem;

  private ServerDefaults(
      Map<String, String> environment,
      Optional<Path> file,
      Map<String, String> fromFile,
      Optional<String> problem) {
    this.environment = Map.copyOf(environment);
    this.file = file;
    this.fromFile = Map.copyOf(fromFile);
    this.problem = problem;
  }

  /** The defaults for a run of {@code berth server} with {@code args} (the whole command line). */
  static ServerDefaults of(Map<String, String> environment, String... args) {
    Optional<Path> file = configFile(environment, List.of(args));
    if (file.isEmpty()) {
      return new ServerDefaults(environment, file, Map.of(), Optional.empty());
    }
    try {
      return new ServerDefaults(environment, file, read(file.get()), Optional.empty());
    } catch (IllegalArgumentException e) {
      return new ServerDefaults(
          environment, file, Map.of(), Optional.of(String.valueOf(e.getMessage())));
    }
  }

  /** The name of the variable that sets {@code option} (such as {@code BERTH_IDLE_AFTER}). */
  static String variable(OptionSpec option) {
    return "BERTH_" + key(option).toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /** The key that sets {@code option} in the configuration file (such as {@code idle-after}). */
  static String key(OptionSpec option) {
    return option.longestName().replaceFirst("^--", "");
  }

  /** Whether {@code option} can be set by a variable and the file (not --help, not --config). */
  static boolean configurable(OptionSpec option) {
    return !option.usageHelp()
        && !option.versionHelp()
        && !option.longestName().equals(CONFIG_OPTION);
  }

  @Override
  public @Nullable String defaultValue(ArgSpec argument) {
    if (!(argument instanceof OptionSpec option) || !configurable(option)) {
      return null;
    }
    String fromEnvironment = environment.get(variable(option));
    if (fromEnvironment != null) {
      return fromEnvironment;
    }
    return fromFile.get(key(option));
  }

  /**
   * Refuses a configuration file that could not be used, or that names no option of {@code
   * command}; {@code given} is the {@code --config} picocli parsed, which must be the file read.
   *
   * @throws CommandLine.ParameterException naming the file and the problem
   */
  void check(CommandSpec command, Optional<Path> given) {
    if (given.isPresent() && !given.equals(file)) {
      // The look at the raw arguments missed the option picocli found (an abbreviation, say).
      throw new CommandLine.ParameterException(
          command.commandLine(),
          "--config " + given.get() + " was not read; write it as --config FILE or --config=FILE");
    }
    if (problem.isPresent()) {
      throw new CommandLine.ParameterException(command.commandLine(), problem.get());
    }
    TreeSet<String> unknown = new TreeSet<>(fromFile.keySet());
    for (OptionSpec option : command.options()) {
      if (configurable(option)) {
        unknown.remove(key(option));
      }
    }
    if (!unknown.isEmpty()) {
      throw new CommandLine.ParameterException(
          command.commandLine(),
          "the configuration file "
              + file.map(Path::toString).orElse("")
              + " sets "
              + String.join(", ", unknown)
              + ", which berth server does not have; the keys are its options' long names"
              + " without the dashes (docs/configuration.md)");
    }
  }

  private static Optional<Path> configFile(Map<String, String> environment, List<String> args) {
    int server = args.indexOf("server");
    if (server >= 0) {
      for (int i = server + 1; i < args.size(); i++) {
        String arg = args.get(i);
        if (arg.equals("--")) {
          break;
        }
        if (arg.equals(CONFIG_OPTION) && i + 1 < args.size()) {
          return Optional.of(Path.of(args.get(i + 1)));
        }
        if (arg.startsWith(CONFIG_OPTION + "=")) {
          return Optional.of(Path.of(arg.substring(CONFIG_OPTION.length() + 1)));
        }
      }
    }
    return Optional.ofNullable(environment.get(CONFIG_VARIABLE)).map(Path::of);
  }

  private static Map<String, String> read(Path file) {
    JsonNode root;
    try {
      root = new YAMLMapper().readTree(Files.readString(file));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the configuration file " + file + ": " + e.getMessage(), e);
    } catch (JacksonException e) {
      throw new IllegalArgumentException(
          "the configuration file " + file + " is not valid YAML: " + e.getOriginalMessage(), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return Map.of();
    }
    if (!root.isObject()) {
      throw new IllegalArgumentException(
          "the configuration file "
              + file
              + " must be a mapping of option names to values, such as \"idle-after: 30m\"");
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : root.properties()) {
      values.put(entry.getKey(), scalar(file, entry.getKey(), entry.getValue()));
    }
    return values;
  }

  private static String scalar(Path file, String key, JsonNode value) {
    if (value.isArray()) {
      List<String> items = new java.util.ArrayList<>();
      for (JsonNode item : value) {
        items.add(scalar(file, key, item));
      }
      return String.join(",", items);
    }
    if (value.isObject() || value.isNull()) {
      throw new IllegalArgumentException(
          "the configuration file "
              + file
              + " gives "
              + key
              + " a "
              + (value.isNull() ? "null" : "mapping")
              + "; it takes a value, or a list for a repeatable option");
    }
    return value.asString();
  }
}
