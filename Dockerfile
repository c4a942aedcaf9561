# The one gateway binary (DESIGN.md) in a small image; docker-compose.yml runs
# it beside Redis and ClickHouse.
FROM golang:1.27.3-bookworm AS build
WORKDIR /src
# Modules first, so a code change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/gateway ./cmd/gateway

# Static binary: distroless has no shell, but has CA certificates (webhooks
# over https) and time zone data, and runs as an unprivileged user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gateway /usr/local/bin/gateway
EXPOSE 8080
ENTRYPOINT ["gateway"]
CMD ["serve"]
