# planlock in a container: Debian slim, Debian's Chromium, and planlock as the entrypoint,
# running as an unprivileged user.
#
#   docker build -t planlock .
#   docker run --rm -v "$PWD:/work" planlock validate plans/signup.json
#   docker run --rm --network host -v "$PWD:/work" planlock run 'plans/*.json' \
#       --var base_url=http://127.0.0.1:8025 --inbox 'smtp://127.0.0.1:2525?domain=demo.planlock.test' \
#       --report reports/html --junit reports/junit.xml
#
# Both Chromium builds are installed: `run`, `act` and `demo` launch the full browser, `serve`
# its headless shell (about half the CPU per run; docs/lock.md says what differs). Pass
# -e CHROME=/usr/bin/chromium to keep `serve` on the full browser.
#
# planlock always starts Chromium with --no-sandbox: the container is the sandbox, and
# Chromium's own one needs privileges (user namespaces) that default seccomp profiles deny.

FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin planlock \
    && install -m 0755 target/release/planlock /usr/local/bin/planlock

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium chromium-headless-shell ca-certificates fonts-liberation fonts-noto-color-emoji tini \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/planlock /usr/local/bin/planlock
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin planlock \
    && mkdir -p /work && chown planlock:planlock /work
USER planlock
WORKDIR /work
ENV PLANLOCK_CACHE_DIR=/home/planlock/.cache/planlock
# tini forwards SIGTERM (docker stop) to planlock, which cancels the runs and writes their
# results and reports before it exits.
ENTRYPOINT ["/usr/bin/tini", "--", "planlock"]
CMD ["--help"]
