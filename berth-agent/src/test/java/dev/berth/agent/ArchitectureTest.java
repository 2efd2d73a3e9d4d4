package dev.berth.agent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.berth.core.testing.architecture.SizeLimits;

/**
 * Architecture rules of the agent module (house style G19): its packages form layers, and its
 * classes and methods stay small.
 */
@AnalyzeClasses(packages = "dev.berth.agent", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule packagesHaveNoCycles =
      slices().matching("dev.berth.agent.(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule theWorkloadPackagesKnowNothingOfHostingOrHttp =
      noClasses()
          .that()
          .resideInAnyPackage(
              "dev.berth.agent.output..",
              "dev.berth.agent.shell..",
              "dev.berth.agent.execution..",
              "dev.berth.agent.isolation..",
              "dev.berth.agent.contract..",
              "dev.berth.agent.archive..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.berth.agent.host..", "dev.berth.agent.http..", "dev.berth.agent.node..")
          .because("the workload packages are used by the host, never the other way round");

  @ArchTest
  static final ArchRule onlyTheHttpPackageKnowsJavalin =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.berth.agent.http..", "dev.berth.agent.proxy..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.javalin..", "org.eclipse.jetty..")
          .because(
              "HTTP is an adapter of the host (its API, and the credential proxy's own server); the"
                  + " host must be usable without it");

  @ArchTest
  static final ArchRule onlyTheTelemetryPackageKnowsMicrometer =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.berth.agent.telemetry..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.micrometer..", "io.prometheus..")
          .because(
              "the host reports through its NodeMeters port; the registry is an adapter, and the"
                  + " host runs without one (NodeMeters.NONE)");

  @ArchTest
  static final ArchRule theHostDoesNotDependOnTheProcessEntryPoints =
      noClasses()
          .that()
          .resideInAPackage("dev.berth.agent.host..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("dev.berth.agent.http..", "dev.berth.agent.node..");

  /**
   * House style: no class over 450 lines, no method over 60. The source is measured (ArchUnit sees
   * only class files; see {@link SizeLimits}), generated code aside; the ten largest classes and
   * methods are printed on every run, so that the build's log shows what grows towards the limit.
   */
  @ArchTest
  static final ArchRule classesAndMethodsStaySmall =
      classes()
          .that()
          .areTopLevelClasses()
          .should(SizeLimits.of(450, 60).printingTheLargest(10, System.out))
          .because(
              "a class or method that long does several things, which are easier to read, test and"
                  + " change apart");
}
