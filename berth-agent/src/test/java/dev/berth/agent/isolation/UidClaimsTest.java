package dev.berth.agent.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UidClaimsTest {
  @TempDir Path dir;

  @Test
  void aPlanKeepsItsUidAndAnotherPlanGetsAnother() {
    UidClaims claims = new UidClaims(dir.resolve("uids"));

    long first = claims.claim("berth-a-1.0001");
    long again = new UidClaims(dir.resolve("uids")).claim("berth-a-1.0001");
    long other = claims.claim("berth-b-1.0001");

    assertThat(again).as("a restarted agent adopting the plan").isEqualTo(first);
    assertThat(other).isNotEqualTo(first);
    assertThat(first).isBetween(UidClaims.BASE, UidClaims.BASE + UidClaims.SIZE - 1);
  }

  @Test
  void plansWhoseHashesCollideStillGetDistinctUids() throws Exception {
    UidClaims claims = new UidClaims(dir.resolve("uids"));
    // "Aa" and "BB" have the same String.hashCode, hence the same first candidate.
    long a = claims.claim("Aa");
    long b = claims.claim("BB");

    assertThat(b).isNotEqualTo(a);
    assertThat(Files.readString(dir.resolve("uids").resolve(Long.toString(b)))).isEqualTo("BB");
  }

  @Test
  void aReleasedUidIsFreeAndOnlyItsHolderCanReleaseIt() {
    UidClaims claims = new UidClaims(dir.resolve("uids"));
    long a = claims.claim("Aa");

    claims.release("BB", a);
    assertThat(dir.resolve("uids").resolve(Long.toString(a))).exists();

    claims.release("Aa", a);
    assertThat(dir.resolve("uids").resolve(Long.toString(a))).doesNotExist();
  }

  @Test
  void releaseAllFreesEveryUidOfAPlanThatWillNotRunAgain() {
    UidClaims claims = new UidClaims(dir.resolve("uids"));
    long a = claims.claim("Aa");
    long b = claims.claim("BB");

    claims.releaseAll(List.of("Aa"));

    assertThat(dir.resolve("uids").resolve(Long.toString(a))).doesNotExist();
    assertThat(dir.resolve("uids").resolve(Long.toString(b))).exists();
  }

  @Test
  void claimsArePrivate() throws Exception {
    UidClaims claims = new UidClaims(dir.resolve("uids"));
    long a = claims.claim("Aa");

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("uids"))))
        .isEqualTo("rwx------");
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("uids").resolve(Long.toString(a)))))
        .isEqualTo("rw-------");
  }
}
