package dev.berth.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Map;
import java.util.Set;

/** Architecture rules of the core module (house style G19). */
@AnalyzeClasses(packages = "dev.berth.core", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  /** Static methods that read the system clock, by owner class. Time must be injected instead. */
  private static final Map<String, Set<String>> SYSTEM_TIME_READS =
      Map.ofEntries(
          Map.entry("java.lang.System", Set.of("currentTimeMillis", "nanoTime")),
          Map.entry("java.time.Clock", Set.of("systemUTC", "systemDefaultZone", "system")),
          Map.entry("java.time.InstantSource", Set.of("system")),
          Map.entry("java.time.Instant", Set.of("now")),
          Map.entry("java.time.LocalDate", Set.of("now")),
          Map.entry("java.time.LocalDateTime", Set.of("now")),
          Map.entry("java.time.LocalTime", Set.of("now")),
          Map.entry("java.time.OffsetDateTime", Set.of("now")),
          Map.entry("java.time.OffsetTime", Set.of("now")),
          Map.entry("java.time.ZonedDateTime", Set.of("now")),
          Map.entry("java.time.Year", Set.of("now")),
          Map.entry("java.time.YearMonth", Set.of("now")),
          Map.entry("java.time.MonthDay", Set.of("now")));

  /** Calls and method references (such as {@code Instant::now}) that read the system clock. */
  private static final DescribedPredicate<JavaAccess<?>> READS_SYSTEM_TIME =
      new DescribedPredicate<>(
          "read the system clock (Instant.now(), System.currentTimeMillis(), ...)") {
        @Override
        public boolean test(JavaAccess<?> access) {
          AccessTarget target = access.getTarget();
          Set<String> methods = SYSTEM_TIME_READS.get(target.getOwner().getName());
          return methods != null && methods.contains(target.getName());
        }
      };

  @ArchTest
  static final ArchRule coreDependsOnlyOnTheJdk =
      classes()
          .that()
          .resideInAPackage("dev.berth.core..")
          .should()
          .onlyDependOnClassesThat()
          // JSpecify's nullness annotations are the one exception: annotations only, a provided
          // dependency that the core needs to compile but not to run.
          // javax.crypto is the JDK's too (the approval gateway keys are HMACs).
          .resideInAnyPackage("java..", "javax.crypto..", "dev.berth.core..", "org.jspecify..")
          .because("the core has no third-party dependencies")
          .allowEmptyShould(true);

  @ArchTest
  static final ArchRule coreDoesNotReadTheSystemClock =
      noClasses()
          .that()
          .resideInAPackage("dev.berth.core..")
          .should()
          .accessTargetWhere(READS_SYSTEM_TIME)
          .because("time must be injected (a java.time.Clock or InstantSource), not read")
          .allowEmptyShould(true);

  @ArchTest
  static final ArchRule theUseCasesAreTheTopLayerOfTheCore =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.berth.core.access..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.berth.core.access..")
          .because(
              "the public API's use cases sit on the model, the lifecycle and the ports; nothing"
                  + " below them may reach up");

  @ArchTest
  static final ArchRule theLifecycleDoesNotKnowHowRequestsAreServed =
      noClasses()
          .that()
          .resideInAPackage("dev.berth.core.lifecycle..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("dev.berth.core.access..", "dev.berth.core.idle..");

  @ArchTest
  static final ArchRule corePackagesHaveNoCycles =
      slices().matching("dev.berth.core.(*)..").should().beFreeOfCycles();
}
