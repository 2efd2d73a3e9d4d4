package dev.berth.store;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** What the store adapters share may lean on the core and JSON, and on no adapter's technology. */
@AnalyzeClasses(packages = "dev.berth.store", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule theSharedStoreCodeDependsOnTheCoreAndJsonOnly =
      classes()
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              "java..",
              "dev.berth.core..",
              "dev.berth.store..",
              "tools.jackson..",
              "com.fasterxml.jackson.annotation..",
              // JSpecify: nullness annotations only, for NullAway.
              "org.jspecify..")
          .because("both store adapters depend on this module, whatever technology they use");
}
