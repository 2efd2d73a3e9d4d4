package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.server.api.OpenApiSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The README and docs/*.md name only what exists: every public API route they write as {@code
 * `METHOD /path`} is in openapi.yaml (which OpenApiRoutesTest holds equal to the server's route
 * table), every problem or failure reason they write in backticks ({@code `NOT_FOUND`}, {@code `409
 * CONFLICT`}) is an identifier or a string literal of the main sources, and every {@code berth}
 * command, long flag and {@code BERTH_*} variable they name is in picocli's model of the {@code
 * berth} command. It reads text only, so it runs in well under a second.
 *
 * <p>What it cannot see is left alone: the node's routes (docs/agent-protocol.md writes them
 * relative to {@code /v1/sessions/{sid}/}), other programs' flags, prose.
 */
class DocsNameWhatExistsTest {

  private static final Path ROOT = Path.of("..");

  private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");
  private static final Pattern ROUTE =
      Pattern.compile("^(GET|POST|PUT|DELETE|PATCH|HEAD) (/[^\\s?`|,;)]*)");
  private static final Pattern REASON = Pattern.compile("^(?:[1-5]\\d\\d )?([A-Z][A-Z0-9_]{2,})$");
  private static final Pattern UPPER_WORD = Pattern.compile("\\b[A-Z][A-Z0-9_]{2,}\\b");
  private static final Pattern LONG_FLAG = Pattern.compile("^--[a-z][a-z0-9-]*$");
  private static final Pattern PARAMETER = Pattern.compile("\\{[^}/]*\\}");
  private static final Pattern LOWER_LITERAL =
      Pattern.compile("\"([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\"");
  private static final Pattern BERTH_COMMAND =
      Pattern.compile("^(?:[A-Z_]+=\\S*\\s+)*(?:bin/|\\./)?berth (.*)$");

  /** The kernel's and libc's names (resource limits, socket options): not Berth's to define. */
  private static final Pattern SYSTEM_NAME =
      Pattern.compile("^(?:RLIMIT|AF|SO|PR|CLONE|CAP|SECCOMP|O|MS)_[A-Z0-9_]+$");

  /** A line naming another program: a standalone flag on it is that program's. */
  private static final Pattern OTHER_PROGRAM =
      Pattern.compile(
          "(?i)\\b(claude|codex|bash|bwrap|bubblewrap|kubectl|curl|npm|mvn|chromium|playwright"
              + "|slirp4netns|the CLI)\\b");

  /** One name a doc uses, where. */
  private record Mention(Path doc, int line, String text, String lineText) {
    String where() {
      return ROOT.relativize(doc) + ":" + line;
    }
  }

  @Test
  void commentsAreLeftOutButLiteralsThatLookLikeThemAreKept() {
    assertThat(
            withoutComments("a(\"http://x\") // GONE\n/* GONE */ b('/') \"\"\"\n // KEPT\n\"\"\""))
        .doesNotContain("GONE")
        .contains("http://x", "b('/')", "// KEPT");
  }

  @Test
  void everyRouteTheDocsNameIsOneTheServerServes() {
    Set<String> served =
        OpenApiSpec.load().routes().stream()
            .map(r -> r.method() + " " + shape(r.path()))
            .collect(Collectors.toSet());
    List<String> missing = new ArrayList<>();
    for (Mention m : backticked()) {
      Matcher route = ROUTE.matcher(m.text());
      if (!route.find() || route.group(2).startsWith("/v1/")) {
        continue;
      }
      String method = route.group(1);
      String path = shape(OpenApiSpec.normalize(route.group(2)));
      if (!served.contains(method + " " + path) && !served.contains(method + " /api/v1" + path)) {
        missing.add(
            m.where()
                + ": names the route `"
                + method
                + " "
                + route.group(2)
                + "`, which openapi.yaml (and so the server) does not have; correct the doc, or"
                + " add the route to the server and to berth-server's openapi.yaml");
      }
    }
    assertThat(missing).as(String.join("\n", missing)).isEmpty();
  }

  @Test
  void everyReasonTheDocsNameIsInTheCode() {
    Set<String> words = codeWords();
    Set<String> variables = serverVariables();
    List<String> missing = new ArrayList<>();
    for (Mention m : backticked()) {
      Matcher reason = REASON.matcher(m.text());
      if (!reason.matches()) {
        continue;
      }
      String name = reason.group(1);
      if (words.contains(name) || variables.contains(name) || SYSTEM_NAME.matcher(name).matches()) {
        continue;
      }
      missing.add(
          m.where()
              + ": names `"
              + name
              + "`, which no identifier or string literal of the main sources, no server"
              + " option's BERTH_* variable and no script of bin/ or web/e2e spells; correct the"
              + " doc to the name the code uses (a problem's reason is its reason() or enum"
              + " constant), or remove it");
    }
    assertThat(missing).as(String.join("\n", missing)).isEmpty();
  }

  @Test
  void everyBerthCommandAndFlagTheDocsNameIsInTheCommandLine() {
    CommandLine berth = BerthCommand.commandLine(CliEnvironment.system());
    Set<String> anyFlag = new HashSet<>();
    collectFlags(berth, anyFlag);
    List<String> missing = new ArrayList<>();
    for (Mention m : backticked()) {
      String text = m.text().trim();
      if (LONG_FLAG.matcher(text.split("[ =]", 2)[0]).matches() && !text.contains("berth ")) {
        String flag = text.split("[ =]", 2)[0];
        if (!anyFlag.contains(flag) && !OTHER_PROGRAM.matcher(m.lineText()).find()) {
          missing.add(
              m.where()
                  + ": names the flag `"
                  + flag
                  + "`, which no berth command has (and the line names no other program whose"
                  + " flag it could be); correct the doc, or add the option");
        }
        continue;
      }
      Matcher command = BERTH_COMMAND.matcher(text);
      if (command.matches()) {
        checkCommand(m, berth, command.group(1), missing);
      }
    }
    for (Mention m : fencedBerthLines()) {
      checkCommand(m, berth, m.text(), missing);
    }
    assertThat(missing).as(String.join("\n", missing)).isEmpty();
  }

  /**
   * The command lines of the docs' fenced blocks that start with {@code berth} (docs/cli.md's
   * synopsis): each alternative after a {@code |} that starts with {@code berth} again is a command
   * of its own, optional parts lose their brackets, and a {@code #} starts a comment.
   */
  private static List<Mention> fencedBerthLines() {
    List<Mention> all = new ArrayList<>();
    for (Path doc : docs()) {
      List<String> lines;
      try {
        lines = Files.readAllLines(doc);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      boolean fenced = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        String code = line.replaceFirst("\\s#\\s.*$", "").replaceFirst("^\\$\\s+", "").strip();
        if (!fenced || !code.startsWith("berth ")) {
          continue;
        }
        for (String alternative : code.split("\\s\\|\\s(?=berth )")) {
          String words = alternative.replaceAll("[\\[\\]]", " ").substring("berth ".length());
          all.add(new Mention(doc, i + 1, words, line));
        }
      }
    }
    return all;
  }

  /**
   * Walks {@code args} down berth's subcommands and checks each long flag on the command reached.
   */
  private static void checkCommand(
      Mention m, CommandLine berth, String args, List<String> missing) {
    CommandLine at = berth;
    boolean operands = false;
    for (String word : args.trim().split("\\s+")) {
      if (word.isEmpty() || word.equals("--") || word.equals("…")) {
        if (word.equals("--")) {
          return; // what follows is the remote command's, not berth's
        }
        continue;
      }
      if (word.startsWith("--")) {
        String flag = word.split("=", 2)[0];
        if (!LONG_FLAG.matcher(flag).matches()) {
          continue;
        }
        if (at.getCommandSpec().findOption(flag) == null) {
          missing.add(
              m.where()
                  + ": names `"
                  + flag
                  + "` of `"
                  + at.getCommandSpec().qualifiedName()
                  + "`, which has no such option (it has "
                  + options(at.getCommandSpec())
                  + "); correct the doc, or add the option");
        }
        continue;
      }
      if (!operands && word.matches("[a-z][a-z-]*")) {
        CommandLine sub = at.getSubcommands().get(word);
        if (sub != null) {
          at = sub;
          continue;
        }
        if (!at.getSubcommands().isEmpty() && at == berth) {
          missing.add(
              m.where()
                  + ": names `berth "
                  + word
                  + "`, which is no berth command (they are "
                  + at.getSubcommands().keySet()
                  + "); correct the doc, or add the command");
          return;
        }
      }
      operands = true;
    }
  }

  private static String options(CommandSpec spec) {
    return spec.options().stream()
        .map(OptionSpec::longestName)
        .filter(n -> n.startsWith("--"))
        .collect(Collectors.joining(", "));
  }

  private static void collectFlags(CommandLine command, Set<String> flags) {
    for (OptionSpec option : command.getCommandSpec().options()) {
      flags.addAll(List.of(option.names()));
    }
    command.getSubcommands().values().forEach(sub -> collectFlags(sub, flags));
  }

  private static Set<String> serverVariables() {
    return ConfigurationReference.serverOptions().stream()
        .map(ServerDefaults::variable)
        .collect(Collectors.toSet());
  }

  /** {@code path} with its parameters unnamed: docs may call {@code {id}} {@code {sid}}. */
  private static String shape(String path) {
    return PARAMETER.matcher(path).replaceAll("{}");
  }

  /**
   * Every upper-case word in the main sources of every module, comments left out, with each dashed
   * string literal in capitals ({@code "claude-code"} gives {@code CLAUDE_CODE}, as the variables
   * the server derives from a type are named), and the words of the scripts that read variables of
   * their own (bin/, the Makefile, the web UI's end-to-end set-up).
   */
  private static Set<String> codeWords() {
    Set<String> words = new HashSet<>();
    List<Path> scripts = new ArrayList<>(List.of(ROOT.resolve("Makefile")));
    try (Stream<Path> bin = Files.list(ROOT.resolve("bin"));
        Stream<Path> e2e = Files.list(ROOT.resolve("web/e2e"))) {
      scripts.addAll(bin.toList());
      scripts.addAll(e2e.toList());
      for (Path script : scripts) {
        UPPER_WORD.matcher(Files.readString(script)).results().forEach(r -> words.add(r.group()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path module :
          modules.filter(p -> p.getFileName().toString().startsWith("berth-")).toList()) {
        Path main = module.resolve("src/main/java");
        if (!Files.isDirectory(main)) {
          continue;
        }
        try (Stream<Path> files = Files.walk(main)) {
          for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
            String code = withoutComments(Files.readString(file));
            UPPER_WORD.matcher(code).results().forEach(r -> words.add(r.group()));
            LOWER_LITERAL
                .matcher(code)
                .results()
                .forEach(r -> words.add(r.group(1).toUpperCase(Locale.ROOT).replace('-', '_')));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return words;
  }

  /**
   * {@code java} with its comments blanked out and its string, text-block and character literals
   * kept, so that a reason named only in a comment does not count and a {@code //} inside a literal
   * (a URL) does not hide the rest of its line.
   */
  static String withoutComments(String java) {
    StringBuilder out = new StringBuilder(java.length());
    int i = 0;
    int n = java.length();
    while (i < n) {
      char c = java.charAt(i);
      if (c == '/' && i + 1 < n && java.charAt(i + 1) == '/') {
        while (i < n && java.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '/' && i + 1 < n && java.charAt(i + 1) == '*') {
        int end = java.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        out.append(' ');
      } else if (java.startsWith("\"\"\"", i)) {
        int end = java.indexOf("\"\"\"", i + 3);
        int stop = end < 0 ? n : end + 3;
        out.append(java, i, stop);
        i = stop;
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && java.charAt(j) != c && java.charAt(j) != '\n') {
          j += java.charAt(j) == '\\' ? 2 : 1;
        }
        int stop = Math.min(n, j + 1);
        out.append(java, i, stop);
        i = stop;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /**
   * Every backticked span of README.md and docs/*.md outside fenced blocks, with the line it starts
   * on; a span may wrap onto the next line, as the docs wrap their prose.
   */
  private static List<Mention> backticked() {
    List<Mention> all = new ArrayList<>();
    for (Path doc : docs()) {
      List<String> lines;
      try {
        lines = Files.readAllLines(doc);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      StringBuilder text = new StringBuilder();
      boolean fenced = false;
      for (String line : lines) {
        boolean fence = line.startsWith("```");
        fenced ^= fence;
        text.append(fence || fenced ? "" : line).append('\n');
      }
      Matcher span = BACKTICKED.matcher(text);
      while (span.find()) {
        int line = (int) text.substring(0, span.start()).chars().filter(c -> c == '\n').count() + 1;
        all.add(new Mention(doc, line, span.group(1).replace('\n', ' '), lines.get(line - 1)));
      }
    }
    return all;
  }

  private static List<Path> docs() {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      files
          .filter(f -> f.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".md"))
          .sorted()
          .forEach(docs::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return docs;
  }
}
