# Berth developer entry points. The default target is `build`.
#   make build   compile and package everything (no tests): berth-cli/target/berth-cli.jar + lib/
#   make run     build if needed, then run `bin/berth server` (http://127.0.0.1:8080); PORT=9090
#                listens elsewhere, ARGS='--no-suspend --log-level debug' adds server flags
#   make test    all tests (every compile runs Error Prone and NullAway), the formatting check and
#                the transition coverage check (./mvnw verify:
#                every declared state-machine move must be taken by some test), then the web UI's
#                tests (bin/test-web: tsc, ESLint and the generated API types' check, vitest, and
#                Playwright in Chromium against the real server; its screenshots go to
#                web/target/screenshots, so the tree stays clean)
#   make screenshots  the web UI's tests again, writing the screenshots into docs/screenshots/
#   make bench   the benchmarks under bench/, each printing its ratio to a baseline of the same run
#                (KubernetesCreateBench takes BENCH_SESSIONS, default 1000, and BENCH_ALIVE, 50)
#   make sweep   the attack sweeps at full size (-Dberth.sweep=full): tenant isolation on every
#                route, fuzzed bodies, cursors and attach frames, raw HTTP framing, fuzzed archives;
#                `make test` runs a bounded sample of each. SEED=N replays a printed seed
#   make docs    regenerate docs/configuration.md from berth server's options (a test compares them)
#   make fmt     format the Java sources (spotless:apply)
#   make clean   remove build output

JAVA_HOME := $(shell bin/java-home)
ifeq ($(JAVA_HOME),)
$(error no JDK >= 21 found (see the message above))
endif
export JAVA_HOME

MVN := ./mvnw -B -ntp
CLI_JAR := berth-cli/target/berth-cli.jar
# Everything that goes into the distribution; a change to any of these rebuilds it for `make run`.
SOURCES := $(shell find . -path ./.git -prune -o -name target -prune -o -name node_modules -prune \
	-o -path ./web/dist -prune -o -type f \( -name '*.java' -o -name pom.xml \
	-o -path '*/src/main/resources/*' -o -path './web/src/*' \) -print) \
	web/package-lock.json web/index.html web/vite.config.ts .mvn/wrapper/maven-wrapper.properties

.DEFAULT_GOAL := build
.PHONY: build run test bench sweep screenshots docs fmt clean

# Formatting is checked by `make test`, not here, so that unformatted code still builds and runs.
build:
	$(MVN) -q package -DskipTests -Dspotless.check.skip=true

$(CLI_JAR): $(SOURCES)
	$(MVN) -q package -DskipTests -Dspotless.check.skip=true
	@touch $@

PORT ?= 8080
ARGS ?=

run: $(CLI_JAR)
	@bin/ensure-test-tools --runtime
	bin/berth server --listen 127.0.0.1:$(PORT) $(ARGS)

test:
	@bin/ensure-test-tools
	$(MVN) verify
	bin/test-web

# The web UI's checks and browser tests, writing the screenshots of each screen into
# docs/screenshots/ (what `make test` writes under web/target/ instead, leaving the tree clean).
screenshots: $(CLI_JAR)
	@bin/ensure-test-tools
	BERTH_SCREENSHOTS=$(CURDIR)/docs/screenshots bin/test-web

docs: $(CLI_JAR)
	$(JAVA_HOME)/bin/java -cp $(CLI_JAR) dev.berth.cli.ConfigurationReference docs/configuration.md

# Not part of `make test`: benchmarks measure, they do not pass or fail. They run on the
# distribution (berth-cli.jar + lib/) plus what bench/pom.xml lists beyond it (fabric8's mock API
# server, for KubernetesCreateBench), whose classpath Maven writes once to bench/target.
BENCH_CLASSPATH := bench/target/bench.classpath

$(BENCH_CLASSPATH): bench/pom.xml pom.xml
	$(MVN) -q -f bench/pom.xml dependency:build-classpath -Dmdep.outputFile=target/bench.classpath

bench: $(CLI_JAR) $(BENCH_CLASSPATH)
	@for b in bench/*.java; do \
	  echo "== $$b"; \
	  "$(JAVA_HOME)/bin/java" --enable-native-access=ALL-UNNAMED \
	    -cp "$(CLI_JAR):berth-cli/target/lib/*:$$(cat $(BENCH_CLASSPATH))" "$$b" || exit 1; \
	done

# Not part of `make test` (which runs a sample of each sweep, bounded to seconds): every sweep at
# full size, minutes. The classes are the ones `make test` runs; only their size changes.
SWEEPS := TenantIsolationSweepTest,RequestFuzzTest,StreamFuzzTest,HttpFramingAttackTest,ArchiveFuzzTest
SEED ?=

sweep:
	@bin/ensure-test-tools --runtime
	$(MVN) -pl berth-server -am test -Dberth.sweep=full $(if $(SEED),-Dberth.seed=$(SEED)) \
	  -Dtest='$(SWEEPS)' -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true

fmt:
	$(MVN) -q spotless:apply

clean:
	$(MVN) -q clean
