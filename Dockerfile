# syntax=docker/dockerfile:1
# cardcat's image: one static binary (the sample catalogue, the docs, the portal's pages and the migrations are
# embedded in it) on a distroless base, run as the non-root user 65532. docs/operations.md, "Deploying", says how
# to use it; deploy/deploy_test.go checks this file against the Makefile and the binary.

FROM golang:1.26 AS build
WORKDIR /src
# The modules first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# No .git in the build context (.dockerignore): pass the version, as `make build` would take it from git describe.
ARG VERSION=dev
# The same build as `make build` (CI builds with the same Makefile), plus -trimpath: no build machine paths in the
# binary. CGO off: a static binary that needs no libc in the final image.
ENV CGO_ENABLED=0 GOFLAGS=-trimpath
RUN make build VERSION="${VERSION}"
# The data directory, created here because the final image has no shell; copied with its owner below.
RUN mkdir -p /out/data

# distroless static: CA certificates (live ingest, S3, SMTP and Stripe over TLS), tzdata, /etc/passwd with the
# user nonroot (65532), and no shell or package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/bin/cardcat /usr/local/bin/cardcat
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
ENV CARDCAT_DATA_DIR=/data CARDCAT_ADDR=:8080
# A named volume mounted here starts with the image's /data, so it is owned by 65532 too.
VOLUME ["/data"]
# 8080: the API. 6060: the admin server (/livez, /readyz, pprof) when CARDCAT_ADMIN_ADDR enables it; never publish
# it to the internet (it has no authentication).
EXPOSE 8080 6060
# No HEALTHCHECK: it would need a shell or an HTTP client in the image, and distroless has neither. Orchestrators
# probe /livez and /readyz on the admin port over the network (deploy/kubernetes/deployment.yaml); a load balancer
# can use GET /health on the API's port.
ENTRYPOINT ["/usr/local/bin/cardcat"]
CMD ["serve"]
