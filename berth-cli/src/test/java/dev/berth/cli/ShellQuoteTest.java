package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShellQuoteTest {

  @Test
  void leavesPlainWordsAloneAndQuotesTheRest() {
    assertThat(ShellQuote.join(List.of("ls", "-l", "/tmp/a.txt", "x=1,y:2")))
        .isEqualTo("ls -l /tmp/a.txt x=1,y:2");
    assertThat(ShellQuote.quote("two words")).isEqualTo("'two words'");
    assertThat(ShellQuote.quote("it's")).isEqualTo("'it'\\''s'");
    assertThat(ShellQuote.quote("")).isEqualTo("''");
    assertThat(ShellQuote.quote("$HOME;rm -rf /")).isEqualTo("'$HOME;rm -rf /'");
  }

  @Test
  void aRealShellSplitsTheLineBackIntoTheSameWords() throws Exception {
    List<String> words =
        List.of(
            "printf",
            "%s\\n",
            "plain",
            "two words",
            "it's",
            "",
            "$HOME",
            "`id`",
            "a\"b",
            "*",
            "new\nline",
            "tab\there",
            "ünï",
            "\\");

    Process shell =
        new ProcessBuilder("sh", "-c", ShellQuote.join(words)).redirectErrorStream(true).start();
    String output = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    shell.waitFor();

    List<String> expected = new ArrayList<>(words.subList(2, words.size()));
    assertThat(output).isEqualTo(String.join("\n", expected) + "\n");
  }
}
