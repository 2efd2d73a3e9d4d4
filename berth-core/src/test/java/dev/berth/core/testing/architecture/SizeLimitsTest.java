package dev.berth.core.testing.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SizeLimitsTest {
  private static final JavaClasses FIXTURE =
      new ClassFileImporter().importClasses(SizeFixture.class, SizeFixture.Nested.class);

  @Test
  void theSourceOfAClassIsFoundFromWhereItWasCompiled() {
    ClassSource source = ClassSource.of(FIXTURE.get(SizeFixture.class));

    assertThat(source)
        .isEqualTo(
            new ClassSource.Written(
                Path.of("src/test/java/dev/berth/core/testing/architecture/SizeFixture.java")
                    .toAbsolutePath()));
  }

  @Test
  void aMethodIsMeasuredFromItsFirstLineToItsClosingBraceWithItsLambdasAndNestedClasses() {
    SourceSize size =
        SourceSize.of(
            Path.of("src/test/java/dev/berth/core/testing/architecture/SizeFixture.java"));

    assertThat(size.lines()).isEqualTo(36);
    assertThat(size.methods())
        .containsExactly(
            new SourceSize.MethodSize("SizeFixture.withLambda()", 15, 9),
            new SourceSize.MethodSize("SizeFixture.Nested.toString()", 31, 4),
            new SourceSize.MethodSize("SizeFixture.SizeFixture()", 10, 3),
            new SourceSize.MethodSize("SizeFixture.count()", 25, 3));
  }

  @Test
  void aViolationNamesTheClassOrMethodItsSizeTheLimitAndTheWayOut() {
    EvaluationResult result =
        classes().that().areTopLevelClasses().should(SizeLimits.of(30, 8)).evaluate(FIXTURE);

    assertThat(result.getFailureReport().getDetails())
        .containsExactly(
            "class dev.berth.core.testing.architecture.SizeFixture has 36 lines (at most 30) in"
                + " (SizeFixture.java:1): split it by responsibility into classes of their own",
            "method dev.berth.core.testing.architecture.SizeFixture.withLambda() has 9 lines (at"
                + " most 8) in (SizeFixture.java:15): split it by responsibility into methods of"
                + " their own");
  }

  @Test
  void classesAndMethodsWithinTheLimitsPass() {
    EvaluationResult result =
        classes().that().areTopLevelClasses().should(SizeLimits.of(36, 9)).evaluate(FIXTURE);

    assertThat(result.hasViolation()).isFalse();
  }

  @Test
  void aClassWhoseSourceCannotBeFoundFailsTheRuleInsteadOfPassingUnmeasured() {
    EvaluationResult result =
        classes()
            .should(SizeLimits.of(450, 60))
            .evaluate(new ClassFileImporter().importClasses(String.class));

    assertThat(result.getFailureReport().getDetails())
        .singleElement()
        .asString()
        .startsWith("cannot measure java.lang.String: it was imported from jrt:/");
  }

  @Test
  void theLargestClassesAndMethodsArePrintedOnceAllAreChecked() {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

    classes()
        .that()
        .areTopLevelClasses()
        .should(SizeLimits.of(450, 60).printingTheLargest(2, out))
        .evaluate(FIXTURE);

    assertThat(printed.toString(StandardCharsets.UTF_8))
        .isEqualToNormalizingNewlines(
            """

            The 1 largest of 1 classes (lines; at most 450):
                36  dev.berth.core.testing.architecture.SizeFixture
            The 2 largest of 4 methods and constructors (lines; at most 60):
                 9  dev.berth.core.testing.architecture.SizeFixture.withLambda()
                 4  dev.berth.core.testing.architecture.SizeFixture.Nested.toString()
            """);
  }
}
