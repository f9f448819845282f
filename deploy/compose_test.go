package deploy_test

import (
	"context"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

var composeFile = filepath.Join(root, "deploy", "compose.yaml")

// loadCompose loads a compose file with the compose spec's own loader (the library docker compose uses), schema
// validation on: an unknown key is an error.
func loadCompose(t *testing.T, file string) (*types.Project, error) {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	details := types.ConfigDetails{
		WorkingDir:  filepath.Dir(abs),
		ConfigFiles: []types.ConfigFile{{Filename: abs}},
		Environment: types.Mapping{},
	}
	return loader.LoadWithContext(context.Background(), details, func(o *loader.Options) {
		o.SetProjectName("cardcat", true)
		o.ResolvePaths = true
	})
}

// TestComposeRefusesUnknownKeys proves the loader of the test below would catch a mistake.
func TestComposeRefusesUnknownKeys(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, key string }{
		{"\n  api-1:\n", "\n  api-1:\n    replicaz: 2\n", "replicaz"},
		{"    healthcheck:\n", "    healthchek:\n", "healthchek"},
	} {
		bad := strings.Replace(string(data), c.old, c.new, 1)
		if bad == string(data) {
			t.Fatalf("compose.yaml has no %q to misspell", c.old)
		}
		file := filepath.Join(t.TempDir(), "compose.yaml")
		if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadCompose(t, file); err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: the loader answered %v, want an error naming it", c.key, err)
		}
	}
}

// TestCompose loads deploy/compose.yaml and checks it against cardcat and itself: each service built from the
// Dockerfile runs a real command with variables cardcat reads, each *_FILE is a secret of that service whose file
// exists, the secrets agree with each other, the proxy forwards to the replicas' port and is trusted by them, the
// backends the variables name are services, and the daily refresh is on.
func TestCompose(t *testing.T) {
	t.Parallel()
	p, err := loadCompose(t, composeFile)
	if err != nil {
		t.Fatal(err)
	}
	df := mustDockerfile(t)
	imageEnv := df.final().env
	repoRoot, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}

	secretValue := func(name string) string {
		t.Helper()
		s, ok := p.Secrets[name]
		if !ok {
			t.Fatalf("no top-level secret %s", name)
		}
		data, err := os.ReadFile(s.File)
		if err != nil {
			t.Fatalf("secret %s: %v", name, err)
		}
		v := strings.TrimSpace(string(data))
		if v == "" {
			t.Fatalf("secret %s: %s is empty", name, s.File)
		}
		return v
	}

	var proxyAddr netip.Addr
	for _, svc := range p.Services {
		if n := svc.Networks["backend"]; n != nil && n.Ipv4Address != "" && strings.HasPrefix(svc.Image, "caddy:") {
			proxyAddr = netip.MustParseAddr(n.Ipv4Address)
		}
	}
	var replicas []string
	for _, name := range slices.Sorted(mapsKeys(p.Services)) {
		svc := p.Services[name]
		if svc.Image == "" && svc.Build == nil {
			t.Errorf("%s: neither image nor build", name)
		}
		if svc.Build == nil {
			continue
		}
		where := "compose.yaml " + name
		if svc.Build.Context != repoRoot || svc.Build.Dockerfile != "Dockerfile" {
			t.Errorf("%s: builds %s in %s, want the repository's Dockerfile", where, svc.Build.Dockerfile, svc.Build.Context)
		}
		if len(svc.Entrypoint) > 0 {
			t.Errorf("%s: entrypoint %v replaces the binary", where, svc.Entrypoint)
		}
		env := map[string]string{}
		for k, v := range svc.Environment {
			if v == nil {
				t.Errorf("%s: %s has no value", where, k)
				continue
			}
			env[k] = *v
		}
		checkCommand(t, where, svc.Command, env)
		if svc.Command[0] == "serve" {
			replicas = append(replicas, name)
		}
		mounted := map[string]bool{}
		for _, s := range svc.Secrets {
			target := s.Target
			if target == "" {
				target = s.Source
			}
			if !path.IsAbs(target) {
				target = "/run/secrets/" + target
			}
			mounted[target] = true
			secretValue(s.Source)
		}
		for k, v := range env {
			if strings.HasSuffix(k, "_FILE") && !mounted[v] {
				t.Errorf("%s: %s=%s is no secret of the service", where, k, v)
			}
		}
		dataDir := imageEnv["CARDCAT_DATA_DIR"]
		if v := env["CARDCAT_DATA_DIR"]; v != "" {
			dataDir = v
		}
		onVolume := false
		for _, v := range svc.Volumes {
			onVolume = onVolume || v.Target == dataDir && v.Type == types.VolumeTypeVolume
		}
		if !onVolume {
			t.Errorf("%s: the data directory %s is not on a named volume", where, dataDir)
		}
		if env["CARDCAT_REFRESH_AT"] == "" {
			t.Errorf("%s: the scheduled refresh is off (CARDCAT_REFRESH_AT)", where)
		} else if !regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$`).MatchString(env["CARDCAT_REFRESH_AT"]) {
			t.Errorf("%s: CARDCAT_REFRESH_AT %q, want HH:MM", where, env["CARDCAT_REFRESH_AT"])
		}
		// The backends the variables name are services of this file.
		if host, _, _ := strings.Cut(strings.TrimPrefix(env["CARDCAT_S3_ENDPOINT"], "http://"), ":"); host != "" {
			if _, ok := p.Services[host]; !ok {
				t.Errorf("%s: CARDCAT_S3_ENDPOINT names %s, no service", where, host)
			}
			if bucket := env["CARDCAT_S3_BUCKET"]; !strings.Contains(strings.Join(p.Services[host].Command, " "), "mkdir -p /s3/"+bucket) {
				t.Errorf("%s: the S3 service does not create the bucket %s", where, bucket)
			}
		}
		for _, c := range []struct{ fileVar, service, passwordSecret string }{
			{"CARDCAT_DATABASE_URL_FILE", "postgres", "postgres_password"},
			{"CARDCAT_REDIS_URL_FILE", "redis", "redis_password"},
		} {
			secret := path.Base(env[c.fileVar])
			u, err := url.Parse(secretValue(secret))
			if err != nil {
				t.Errorf("%s: secret %s: %v", where, secret, err)
				continue
			}
			if _, ok := p.Services[u.Hostname()]; !ok || u.Hostname() != c.service {
				t.Errorf("%s: secret %s names host %s, want the service %s", where, secret, u.Hostname(), c.service)
			}
			if pw, _ := u.User.Password(); pw != secretValue(c.passwordSecret) {
				t.Errorf("%s: the password in secret %s is not the one in %s", where, secret, c.passwordSecret)
			}
		}
		if svc.Restart == "" || svc.Restart == "no" {
			t.Errorf("%s: no restart policy: a replica that stops on a backend not yet up stays down", where)
		}
		// Caddy's address is trusted, so that the guard limit counts clients, not the proxy.
		trusted, err := netip.ParsePrefix(env["CARDCAT_TRUSTED_PROXIES"])
		if err != nil || !proxyAddr.IsValid() || !trusted.Contains(proxyAddr) {
			t.Errorf("%s: CARDCAT_TRUSTED_PROXIES %q (%v) does not hold the proxy's address %v", where, env["CARDCAT_TRUSTED_PROXIES"], err, proxyAddr)
		}
	}
	if len(replicas) < 2 {
		t.Errorf("serve replicas %v, want two", replicas)
	}

	// The proxy sends to every replica, on the port serve listens on, and checks the path /health answers on.
	caddyfile, err := os.ReadFile(filepath.Join(root, "deploy", "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`reverse_proxy ([^{]+)\{`).FindSubmatch(caddyfile)
	if m == nil {
		t.Fatal("Caddyfile: no reverse_proxy")
	}
	apiPort := portOf(t, "Dockerfile CARDCAT_ADDR", imageEnv["CARDCAT_ADDR"])
	var upstreams []string
	for _, u := range strings.Fields(string(m[1])) {
		host, port, _ := strings.Cut(u, ":")
		upstreams = append(upstreams, host)
		if port != strconv.Itoa(apiPort) {
			t.Errorf("Caddyfile: upstream %s, serve listens on %d", u, apiPort)
		}
	}
	if slices.Sort(upstreams); !slices.Equal(upstreams, replicas) {
		t.Errorf("Caddyfile upstreams %v, want the replicas %v", upstreams, replicas)
	}
	hc := regexp.MustCompile(`health_uri (\S+)`).FindSubmatch(caddyfile)
	if hc == nil {
		t.Fatal("Caddyfile: no health_uri")
	}
	_, api := servedProbes(t, nil, []string{string(hc[1])})
	if code := api[string(hc[1])]; code != 200 {
		t.Errorf("Caddyfile health_uri %s: serve answers %d, want 200", hc[1], code)
	}
}
