package dev.berth.archive.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.archive.s3.S3ArchiveSettings.StaticCredentials;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How a server flag's s3:// URI becomes settings, and how a wrong one is refused. */
class S3ArchiveUriTest {

  @Test
  void aFullUriGivesEverySetting() {
    S3ArchiveSettings settings =
        S3ArchiveUri.parse(
            "s3://berth-archives/prod/archives?endpoint=http://127.0.0.1:9000&region=eu-west-1"
                + "&pathStyle=false&partSizeMiB=16&staleAfter=PT6H");

    assertThat(settings.bucket()).isEqualTo("berth-archives");
    assertThat(settings.prefix()).isEqualTo("prod/archives/");
    assertThat(settings.endpoint()).contains(URI.create("http://127.0.0.1:9000"));
    assertThat(settings.region()).contains("eu-west-1");
    assertThat(settings.pathStyle()).isFalse();
    assertThat(settings.partSizeBytes()).isEqualTo(16 * 1024 * 1024);
    assertThat(settings.staleAfter()).isEqualTo(Duration.ofHours(6));
    assertThat(settings.credentials()).isEmpty();
  }

  @Test
  void aBareBucketTakesAwsTheDefaultChainsAndTheDefaults() {
    S3ArchiveSettings settings = S3ArchiveUri.parse("s3://berth-archives");

    assertThat(settings).isEqualTo(S3ArchiveSettings.of("berth-archives", ""));
    assertThat(S3ArchiveUri.parse("s3://berth-archives/").prefix()).isEmpty();
    assertThat(settings.region()).isEmpty();
    assertThat(settings.endpoint()).isEmpty();
    assertThat(settings.pathStyle()).isFalse();
    assertThat(settings.partSizeBytes()).isEqualTo(S3ArchiveSettings.DEFAULT_PART_SIZE);
    assertThat(settings.staleAfter()).isEqualTo(S3ArchiveSettings.DEFAULT_STALE_AFTER);
  }

  @Test
  void anEndpointAddressesTheBucketByPathUnlessToldOtherwise() {
    assertThat(S3ArchiveUri.parse("s3://b-1/?endpoint=https://s3.local").pathStyle()).isTrue();
    assertThat(S3ArchiveUri.parse("s3://b-1/?pathStyle=true").pathStyle()).isTrue();
  }

  @Test
  void settingsNeverPrintTheSecretKey() {
    S3ArchiveSettings settings =
        S3ArchiveSettings.of("b-1", "")
            .withStaticCredentials(new StaticCredentials("AKIAEXAMPLE", "very-secret"));

    assertThat(settings.toString()).doesNotContain("very-secret").contains("static");
    assertThat(settings.credentials().map(Object::toString))
        .get()
        .asString()
        .contains("AKIAEXAMPLE")
        .doesNotContain("very-secret");
    assertThat(settings.describe()).isEqualTo("s3://b-1/");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          http://b-1/x                                | scheme           | s3      | http://b-1/x
          s3:///prefix                                | bucket           | after s3:// | s3://bucket/prefix
          s3://B_1/                                   | bucket           | lowercase   | existing bucket
          s3://b-1:9000/                              | bucket           | without a port | ?endpoint=http://b-1:9000
          s3://b-1//x/                                | prefix           | not starting with / | berth/archives/
          s3://b-1/x//y                               | prefix           | no empty folder | doubled slash
          s3://b-1/?regoin=us-east-1                  | option           | one of endpoint | spelling
          s3://b-1/?region=a&region=b                 | option region    | given once  | keep one
          s3://b-1/?region=                           | option region    | given a value | region=…
          s3://b-1/?pathStyle=yes                     | option pathStyle | true or false | pathStyle=true
          s3://b-1/?endpoint=ftp://host               | endpoint         | http or https | endpoint=http://127.0.0.1:9000
          s3://b-1/?endpoint=http:nohost              | endpoint         | with a host | endpoint=http://127.0.0.1:9000
          s3://b-1/?partSizeMiB=4                     | partSizeMiB      | from 5 to 512 | 8 MiB
          s3://b-1/?partSizeMiB=lots                  | partSizeMiB      | whole number | 8 MiB
          s3://b-1/?staleAfter=1d                     | staleAfter       | ISO-8601 | PT24H
          s3://b-1/?staleAfter=PT1S                   | stale-after age  | at least a minute | default
          s3://b-1/x#frag                             | archive URI      | fragment | encode #
          """)
  void aWrongUriIsRefusedNamingThePartTheRuleTheValueAndTheWayOut(
      String uri, String subject, String rule, String wayOut) {
    assertThatThrownBy(() -> S3ArchiveUri.parse(uri))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("S3 archive store: the ")
        .hasMessageContaining(subject)
        .hasMessageContaining(rule)
        .hasMessageContaining(wayOut)
        .hasMessageContaining("was \"");
  }

  @Test
  void credentialsInTheUriAreRefusedWithoutPrintingThem() {
    for (String uri :
        new String[] {
          "s3://AKIAEXAMPLE:very-secret@b-1/prefix",
          "s3://AKIAEXAMPLE:very-secret@B_1/prefix",
          "s3://b-1/?endpoint=http://AKIAEXAMPLE:very-secret@127.0.0.1:9000"
        }) {
      assertThatThrownBy(() -> S3ArchiveUri.parse(uri))
          .as(uri)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("free of credentials")
          .hasMessageContaining("default chain")
          .hasMessageNotContaining("very-secret");
    }
  }

  @Test
  void staticCredentialsNeedBothKeys() {
    assertThatThrownBy(() -> new StaticCredentials("AKIAEXAMPLE", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("default credentials chain");
  }

  @Test
  void anOwnerIdThatCannotBePartOfAnObjectNameIsRefused() {
    S3TestServer server = S3TestServer.get();
    assertThatThrownBy(
            () ->
                new S3ArchiveStore(
                    server.client(),
                    server.settings(S3TestServer.freshPrefix()),
                    "pod.example.com",
                    Clock.systemUTC()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("owner id")
        .hasMessageContaining("pod.example.com")
        .hasMessageContaining("replaced by -");
  }
}
