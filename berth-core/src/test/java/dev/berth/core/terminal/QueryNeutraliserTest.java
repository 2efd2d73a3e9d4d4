package dev.berth.core.terminal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Replayed output keeps every byte count and loses every question a terminal would answer. */
class QueryNeutraliserTest {

  /**
   * What vim 9 wrote on a real PTY (TERM=xterm-256color) at start-up, abridged: its cursor
   * position, device attributes and colour queries among the ordinary sequences around them.
   */
  private static final String VIM_START =
      "\u001b[?1049h\u001b[22;0;0t\u001b[>4;2m\u001b[?1h\u001b=\u001b[?2004h\u001b[1;24r"
          + "\u001b[27m\u001b[H\u001b[2J\u001b[6n\u001b[>c\u001b]10;?\u0007\u001b]11;?\u0007"
          + "\u001b[?4m\u001b[24;63H\"x.txt\" [New]\u001b[?25h";

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String whole(String text) {
    QueryNeutraliser n = new QueryNeutraliser();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(n.filter(bytes(text)));
    out.writeBytes(n.finish());
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  private static String nul(int count) {
    return "\0".repeat(count);
  }

  @Test
  void theQueriesOfAVimStartAreOverwrittenWithNulsAndEverythingElseIsKept() {
    String out = whole(VIM_START);

    assertThat(out).hasSameSizeAs(VIM_START);
    assertThat(out)
        .doesNotContain("\u001b[6n", "\u001b[>c", "\u001b]10;?", "\u001b]11;?", "\u001b[?4m")
        .contains(
            "\u001b[?1049h",
            "\u001b[22;0;0t",
            "\u001b[>4;2m",
            "\u001b[2J" + nul(4) + nul(4) + nul(7) + nul(7) + nul(5) + "\u001b[24;63H",
            "\"x.txt\" [New]");
  }

  @Test
  void everyKindOfQueryIsNeutralisedAndItsLookAlikesAreNot() {
    List<String> queries =
        List.of(
            "\u0005",
            "\u001bZ",
            "\u001b[c",
            "\u001b[0c",
            "\u001b[=c",
            "\u001b[5n",
            "\u001b[?6n",
            "\u001b[?2026$p",
            "\u001b[4$p",
            "\u001b[1x",
            "\u001b[>0q",
            "\u001b[?u",
            "\u001b[?1;1;0S",
            "\u001b[18t",
            "\u001b[14;2t",
            "\u001b]4;1;?\u0007",
            "\u001b]52;c;?\u001b\\",
            "\u001b]12;?\u001b\\",
            "\u001bP$qm\u001b\\",
            "\u001bP+q544e\u001b\\",
            "\u001bP1$r0m\u001b\\",
            "\u001b]52;c;aGVsbG8=\u0007",
            "\u001b]1337;ReportCellSize\u0007",
            "\u001b_Ga=q,i=1;AAAA\u001b\\",
            "\u001b[6\bn",
            "\u001b\r[6n",
            "\u00c2\u009b6n",
            "\u00c2\u009d11;?\u0007",
            "\u001b[014t",
            "\u001b[1;1;1;1;1;1*y",
            "\u001b[1$w",
            "\u001b[1$u",
            "\u001bP0$qm\u001b\\");
    for (String query : queries) {
      assertThat(whole("a" + query + "b"))
          .as("%s", query.replace("\u001b", "ESC"))
          .isEqualTo("a" + nul(query.length()) + "b");
    }
    List<String> harmless =
        List.of(
            "\u001b[1;31m",
            "\u001b[22;0;0t",
            "\u001b[8;24;80t",
            "\u001b[?2026h",
            "\u001b[>4;2m",
            "\u001b]0;title\u0007",
            "\u001b]8;;https://example.com/?q=1\u001b\\",
            "\u001b7",
            "\u001b(B",
            "\u001b[1;5C",
            "\u00c3\u00a9t\u00c3\u00a9",
            "plain text ? with c and n");
    for (String sequence : harmless) {
      assertThat(whole("a" + sequence + "b"))
          .as("%s", sequence.replace("\u001b", "ESC"))
          .isEqualTo("a" + sequence + "b");
    }
  }

  @Test
  void anEscapeInsideASequenceStartsANewOneSoADoubledEscapeHidesNothing() {
    assertThat(whole("\u001b\u001b[6n")).isEqualTo("\u001b" + nul(4));
    assertThat(whole("\u001b[1\u001b[6n")).isEqualTo("\u001b[1" + nul(4));
    assertThat(whole("\u001b]0;t\u001b]11;?\u0007")).isEqualTo("\u001b]0;t" + nul(7));
  }

  @Test
  void aQueryCutAcrossPiecesIsHeldUntilItIsWholeWhereverTheCutFalls() {
    String expected = whole(VIM_START);
    byte[] all = bytes(VIM_START);
    for (int cut = 0; cut <= all.length; cut++) {
      QueryNeutraliser n = new QueryNeutraliser();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.writeBytes(n.filter(java.util.Arrays.copyOfRange(all, 0, cut)));
      out.writeBytes(n.filter(java.util.Arrays.copyOfRange(all, cut, all.length)));
      out.writeBytes(n.finish());
      assertThat(out.toString(StandardCharsets.ISO_8859_1))
          .as("cut at %d", cut)
          .isEqualTo(expected);
    }
  }

  @Test
  void anIncompleteSequenceAtTheEndIsReleasedUnchangedByFinish() {
    QueryNeutraliser n = new QueryNeutraliser();

    assertThat(n.filter(bytes("ok \u001b[6"))).isEqualTo(bytes("ok "));
    assertThat(n.finish()).isEqualTo(bytes("\u001b[6"));
    assertThat(n.finish()).isEmpty();
  }

  @Test
  void aSequenceLongerThanAnyQueryIsBlankedAsItStreamsByAndNothingIsHeldForEver() {
    String padded = "\u001b[" + "0".repeat(QueryNeutraliser.MAX_SEQUENCE * 2) + "6n";
    QueryNeutraliser n = new QueryNeutraliser();

    String first = new String(n.filter(bytes(padded.substring(0, 400))), ISO);
    String second = new String(n.filter(bytes(padded.substring(400) + "ok")), ISO);

    assertThat(first.length() + second.length() + n.finish().length).isEqualTo(padded.length() + 2);
    assertThat(second).endsWith(nul(2) + "ok");
    assertThat(first + second).doesNotContain("6n", "\u001b");
  }

  private static final java.nio.charset.Charset ISO = StandardCharsets.ISO_8859_1;
}
