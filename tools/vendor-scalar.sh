#!/usr/bin/env bash
# Vendors Scalar's API reference (npm @scalar/api-reference), the browser
# bundle that GET /docs loads, at the pinned version below: fetched with
# `npm pack` from the npm registry, checked against the registry's integrity
# hash of that version, and copied to internal/site/docsite/vendor/scalar/,
# which the binary embeds. Run it after changing VERSION and INTEGRITY
# (`npm view @scalar/api-reference@X.Y.Z dist.integrity`), then run the
# Chromium test (CARDCAT_TEST_CHROMIUM, see README) before committing.
#
# Only dist/browser/standalone.js is kept: it is the whole reference (Vue,
# the styles, the code-sample generators) in one file and loads nothing else.
# The npm package ships no LICENSE file; ours (MIT, Scalar's) stays beside it
# and this script checks that the package still says MIT.
set -euo pipefail

VERSION=1.72.1
INTEGRITY=sha512-XpEJ0rfc/cXbCrR+iC4kK0o/WwX2dTtGQbT049OlPKAHD6IMIFdTeGz2r+M27P2EDWKyUITRm/NzlP8z2pw/Ow==

cd "$(dirname "$0")/.."
dest=internal/site/docsite/vendor/scalar
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "@scalar/api-reference@$VERSION" >/dev/null)
tgz="$tmp/scalar-api-reference-$VERSION.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
	echo "vendor-scalar: $tgz has $got, want $INTEGRITY" >&2
	exit 1
fi

tar -xzf "$tgz" -C "$tmp" package/package.json package/dist/browser/standalone.js
license="$(node -e 'process.stdout.write(require(process.argv[1]).license)' "$tmp/package/package.json")"
if [ "$license" != MIT ]; then
	echo "vendor-scalar: the package's license is now $license: review it and update $dest/LICENSE" >&2
	exit 1
fi

mkdir -p "$dest"
cp "$tmp/package/dist/browser/standalone.js" "$dest/standalone.js"
printf '%s\n' "$VERSION" >"$dest/VERSION"
(cd "$dest" && sha256sum standalone.js >standalone.js.sha256)
echo "vendor-scalar: @scalar/api-reference $VERSION in $dest ($(wc -c <"$dest/standalone.js") bytes)"
