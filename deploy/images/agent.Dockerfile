# The session pods' image: `berth agent`, hosting one session (a shell, or a coding-agent CLI),
# with bash, coreutils and git for the session's work and the agent CLIs (Claude Code, Codex) at
# the versions pinned in tools/agent-clis/package-lock.json.
#
# Build from the repository root after `make build` (the distribution in berth-cli/target):
#   docker build -f deploy/images/agent.Dockerfile -t berth-agent:dev .
#
# The Kubernetes runtime runs it as uid 1000 under the restricted Pod Security Standard, with
# emptyDir volumes for the state directory /var/lib/berth and /tmp, and starts it with its own
# arguments (`agent --session ... --installation ...`); the bearer token comes from
# BERTH_AGENT_TOKEN. An agent session's pod runs it twice: the `agent` container (with
# `--workload TYPE --agent-cli /opt/berth/agent-clis/node_modules/.bin/claude|codex ...`), and the
# `proxy` container, `berth proxy --session ID --listen 127.0.0.1:8091` as uid 65532 with the
# provider's token from its Secret; that container's readiness probe runs the image's Node.js.
# Everything it needs is world-readable and world-executable, so uid 65532 runs it as 1000 does.

# The agent CLIs, installed exactly as locked (npm ci). Claude Code needs Node.js >= 22.
FROM node:22-bookworm-slim AS agent-clis
WORKDIR /opt/berth/agent-clis
COPY tools/agent-clis/package.json tools/agent-clis/package-lock.json ./
RUN npm ci --no-audit --no-fund

# Node.js (for Codex's launcher) comes with the base; the Java runtime from the Temurin image.
FROM node:22-bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      bash coreutils git ca-certificates \
 && rm -rf /var/lib/apt/lists/*

ENV JAVA_HOME=/opt/java/openjdk
COPY --from=eclipse-temurin:21-jre /opt/java/openjdk /opt/java/openjdk

# uid 1000 is the base image's `node`; the session's user is `berth` with home /home/berth, the
# same in-sandbox home as on the local runtime, so absolute paths survive a restore.
RUN userdel --remove node \
 && groupadd --gid 1000 berth \
 && useradd --uid 1000 --gid 1000 --home-dir /home/berth --create-home --shell /bin/bash berth \
 && install -d -o 1000 -g 1000 -m 0700 /var/lib/berth

# The CLIs at the versions tools/agent-clis/package-lock.json pins (@anthropic-ai/claude-code
# 2.1.328, @openai/codex 0.169.0 at this writing); --agent-cli TYPE=PATH points at them.
COPY --from=agent-clis /opt/berth/agent-clis/node_modules /opt/berth/agent-clis/node_modules
COPY bin/berth /opt/berth/bin/berth
# bin/java-home would look for a JDK; the image has only the JRE at $JAVA_HOME.
COPY deploy/images/java-home /opt/berth/bin/java-home
COPY berth-cli/target/lib/ /opt/berth/berth-cli/target/lib/
COPY berth-cli/target/berth-cli.jar /opt/berth/berth-cli/target/berth-cli.jar

# `berth` (the runtime may run it by name) and the agent CLIs (`claude`, `codex`) on PATH.
ENV PATH=/opt/berth/bin:/opt/berth/agent-clis/node_modules/.bin:/opt/java/openjdk/bin:$PATH \
    HOME=/home/berth
USER 1000:1000
WORKDIR /home/berth
EXPOSE 8090
ENTRYPOINT ["/opt/berth/bin/berth", "agent"]
