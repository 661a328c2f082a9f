# A small image with gen, bash and git. The build stage compiles from the
# Go module cache only (GOFLAGS=-mod=mod GOPROXY=off), so it builds offline
# once the cache is primed by `go mod download` in a stage that may reach
# the proxy; pass --build-arg GOPROXY=off with a cache mounted to build
# with no network at all.
#
#   docker build -t gen .
#   docker run --rm -v "$PWD:/work" -w /work gen agent batch tasks.jsonl
FROM golang:1.26-alpine AS build
ARG GOPROXY=https://proxy.golang.org
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod GOPROXY=$GOPROXY go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    CGO_ENABLED=0 GOFLAGS=-mod=mod GOPROXY=off \
    go build -trimpath -ldflags="-s -w" -o /out/gen ./cmd/gen

FROM alpine:3.22
RUN apk add --no-cache bash git ca-certificates \
    && adduser -D -h /home/gen gen
COPY --from=build /out/gen /usr/local/bin/gen
USER gen
WORKDIR /home/gen
ENTRYPOINT ["gen"]
