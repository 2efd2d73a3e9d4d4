package dev.berth.protocol;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The protocol is vocabulary both planes share: it may lean on the core and JSON, nothing else. */
@AnalyzeClasses(
    packages = "dev.berth.protocol",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule theProtocolDependsOnTheCoreAndJsonOnly =
      classes()
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              "java..",
              "javax..",
              "com.sun.security.auth..",
              "dev.berth.core..",
              "dev.berth.protocol..",
              "tools.jackson..",
              // JSpecify: nullness annotations only, for NullAway.
              "org.jspecify..")
          .because("a plane that depends on the protocol must not get the other plane with it");
}
