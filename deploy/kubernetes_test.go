package deploy_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/intstr"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

var k8sDir = filepath.Join(root, "deploy", "kubernetes")

// strictDecoder decodes YAML into the official API types of the kinds the manifests use, refusing unknown and
// duplicated fields (apimachinery's strict serializer, as the API server's strict field validation).
func strictDecoder(t *testing.T) runtime.Decoder {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, autoscalingv2.AddToScheme,
		policyv1.AddToScheme, networkingv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
}

// yamlDocuments splits a multi-document YAML file, dropping documents with nothing but comments.
func yamlDocuments(data []byte) ([][]byte, error) {
	r := kyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		empty := true
		for line := range strings.Lines(string(doc)) {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") && l != "---" {
				empty = false
			}
		}
		if !empty {
			docs = append(docs, doc)
		}
	}
}

// manifests are the decoded objects of deploy/kubernetes, by kind.
type manifests struct {
	files       []string
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	cronJobs    []*batchv1.CronJob
	pdbs        []*policyv1.PodDisruptionBudget
	configMaps  map[string]*corev1.ConfigMap
	secrets     map[string]*corev1.Secret
	policies    []*networkingv1.NetworkPolicy
	namespaces  []*corev1.Namespace
}

func decodeManifests(t *testing.T) *manifests {
	t.Helper()
	dec := strictDecoder(t)
	paths, err := filepath.Glob(filepath.Join(k8sDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := &manifests{configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{}}
	for _, p := range paths {
		if filepath.Base(p) == "kustomization.yaml" {
			continue
		}
		m.files = append(m.files, filepath.Base(p))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := yamlDocuments(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(docs) == 0 {
			t.Errorf("%s: no object", p)
		}
		for i, doc := range docs {
			obj, gvk, err := dec.Decode(doc, nil, nil)
			if err != nil {
				t.Errorf("%s, document %d: %v", filepath.Base(p), i+1, err)
				continue
			}
			switch o := obj.(type) {
			case *appsv1.Deployment:
				m.deployments = append(m.deployments, o)
			case *corev1.Service:
				m.services = append(m.services, o)
			case *autoscalingv2.HorizontalPodAutoscaler:
				m.hpas = append(m.hpas, o)
			case *batchv1.CronJob:
				m.cronJobs = append(m.cronJobs, o)
			case *policyv1.PodDisruptionBudget:
				m.pdbs = append(m.pdbs, o)
			case *corev1.ConfigMap:
				m.configMaps[o.Name] = o
			case *corev1.Secret:
				m.secrets[o.Name] = o
			case *networkingv1.NetworkPolicy:
				m.policies = append(m.policies, o)
			case *corev1.Namespace:
				m.namespaces = append(m.namespaces, o)
			default:
				t.Errorf("%s: %v: this test checks nothing of that kind; teach it", filepath.Base(p), gvk)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return m
}

// TestKubernetesManifestsDecodeStrictly: every document of every manifest is an object of the official API types,
// with no field those types lack.
func TestKubernetesManifestsDecodeStrictly(t *testing.T) {
	t.Parallel()
	m := decodeManifests(t)
	if len(m.deployments) != 1 || len(m.services) != 1 || len(m.hpas) != 1 || len(m.cronJobs) != 1 ||
		len(m.pdbs) != 1 || len(m.secrets) != 1 || len(m.configMaps) == 0 {
		t.Errorf("want one Deployment, Service, HPA, CronJob, PDB and Secret and a ConfigMap; got %d, %d, %d, %d, %d, %d, %d",
			len(m.deployments), len(m.services), len(m.hpas), len(m.cronJobs), len(m.pdbs), len(m.secrets), len(m.configMaps))
	}
}

// TestStrictDecodeRefusesUnknownFields proves the decoder of the test above would catch a mistake: a misspelt
// field, at the top of a spec and deep in a container, is refused, not silently dropped as a plain decode would.
func TestStrictDecodeRefusesUnknownFields(t *testing.T) {
	t.Parallel()
	dec := strictDecoder(t)
	data, err := os.ReadFile(filepath.Join(k8sDir, "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := dec.Decode(data, nil, nil); err != nil {
		t.Fatalf("the file itself: %v", err)
	}
	for _, c := range []struct{ old, new, field string }{
		{"\nspec:\n", "\nspec:\n  replicaz: 3\n", "replicaz"},
		{"readinessProbe:", "readinesProbe:", "readinesProbe"},
		{"readOnlyRootFilesystem: true", "readOnlyRootFileSystem: true", "readOnlyRootFileSystem"},
	} {
		bad := strings.Replace(string(data), c.old, c.new, 1)
		if bad == string(data) {
			t.Fatalf("deployment.yaml has no %q to misspell", c.old)
		}
		_, _, err := dec.Decode([]byte(bad), nil, nil)
		if !runtime.IsStrictDecodingError(err) || !strings.Contains(err.Error(), `unknown field "`) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: decode answered %v, want a strict decoding error naming the unknown field", c.field, err)
		}
	}
	// The kustomization, decoded into this test's own struct, refuses unknown fields too.
	var k kustomization
	if err := yaml.UnmarshalStrict([]byte("resources: [a.yaml]\nresourcez: [b.yaml]\n"), &k); err == nil || !strings.Contains(err.Error(), "resourcez") {
		t.Errorf("kustomization with resourcez: %v, want an unknown field error", err)
	}
}

// kustomization is the part of kustomize's Kustomization the file uses.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace"`
	Resources  []string `json:"resources"`
	Images     []struct {
		Name   string `json:"name"`
		NewTag string `json:"newTag"`
	} `json:"images"`
}

// TestKustomization: it lists every manifest but the Secret's example, and its image is the one the workloads run.
func TestKustomization(t *testing.T) {
	t.Parallel()
	m := decodeManifests(t)
	data, err := os.ReadFile(filepath.Join(k8sDir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k kustomization
	if err := yaml.UnmarshalStrict(data, &k); err != nil {
		t.Fatal(err)
	}
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		t.Errorf("kustomization: %s %s", k.APIVersion, k.Kind)
	}
	// Every manifest but the Secret's example, which an apply would write over the real one.
	want := slices.DeleteFunc(slices.Clone(m.files), func(f string) bool { return f == "secret.yaml" })
	if got := slices.Sorted(slices.Values(k.Resources)); !slices.Equal(got, want) {
		t.Errorf("kustomization resources %v, want every manifest but secret.yaml %v", got, want)
	}
	if len(m.namespaces) != 1 || m.namespaces[0].Name != k.Namespace {
		t.Errorf("kustomization's namespace %q is not the Namespace of namespace.yaml", k.Namespace)
	}
	image := m.deployments[0].Spec.Template.Spec.Containers[0].Image
	repo, tag, _ := strings.Cut(image, ":")
	if len(k.Images) != 1 || k.Images[0].Name != repo || k.Images[0].NewTag != tag {
		t.Errorf("kustomization images %+v, want %s at %s", k.Images, repo, tag)
	}
}

// TestKubernetesWorkloadsRunCardcat checks each container of the Deployment and the CronJob against the binary:
// its command and flags, every variable (from env and from the ConfigMaps of envFrom), each *_FILE pointing into
// a mounted Secret that has that key, the ports, the probes (served for real by the binary), the data directory
// on a volume (the root file system is read-only), the non-root user of the image, and GOMEMLIMIT under the limit.
func TestKubernetesWorkloadsRunCardcat(t *testing.T) {
	t.Parallel()
	m := decodeManifests(t)
	df := mustDockerfile(t)
	imageEnv := df.final().env
	dep := m.deployments[0]
	job := m.cronJobs[0]
	pods := []struct {
		where string
		spec  *corev1.PodSpec
	}{
		{"deployment.yaml", &dep.Spec.Template.Spec},
		{"cronjob.yaml", &job.Spec.JobTemplate.Spec.Template.Spec},
	}
	var probePaths []string
	for _, pod := range pods {
		sc := pod.spec.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != 65532 {
			t.Errorf("%s: the pod must run as non-root 65532, the image's user", pod.where)
		}
		if pod.spec.AutomountServiceAccountToken == nil || *pod.spec.AutomountServiceAccountToken {
			t.Errorf("%s: cardcat does not talk to the API server: automountServiceAccountToken: false", pod.where)
		}
		if len(pod.spec.Containers) != 1 {
			t.Fatalf("%s: want one container", pod.where)
		}
		c := pod.spec.Containers[0]
		where := pod.where + " " + c.Name
		if c.Image != dep.Spec.Template.Spec.Containers[0].Image {
			t.Errorf("%s: image %s, the Deployment's is %s", where, c.Image, dep.Spec.Template.Spec.Containers[0].Image)
		}
		csc := c.SecurityContext
		if csc == nil || csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem ||
			csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation ||
			csc.Capabilities == nil || !slices.Contains(csc.Capabilities.Drop, "ALL") {
			t.Errorf("%s: want readOnlyRootFilesystem, no privilege escalation, every capability dropped", where)
		}
		if len(c.Command) > 0 {
			t.Errorf("%s: command %v replaces the image's entrypoint (the binary); give args only", where, c.Command)
		}

		// The environment the binary sees: the image's, the ConfigMaps', then env (later wins).
		env := map[string]string{}
		for _, ef := range c.EnvFrom {
			if ef.ConfigMapRef == nil {
				t.Errorf("%s: envFrom other than a ConfigMap", where)
				continue
			}
			cm := m.configMaps[ef.ConfigMapRef.Name]
			if cm == nil {
				t.Errorf("%s: envFrom names ConfigMap %s, which no manifest defines", where, ef.ConfigMapRef.Name)
				continue
			}
			for k, v := range cm.Data {
				env[k] = v
			}
		}
		for _, e := range c.Env {
			env[e.Name] = e.Value
			if e.ValueFrom != nil && e.ValueFrom.FieldRef == nil {
				t.Errorf("%s: %s: only fieldRef values are checked by this test", where, e.Name)
			}
		}
		checkCommand(t, where, c.Args, env)
		cmdName := c.Args[0]
		full := map[string]string{}
		for k, v := range imageEnv {
			full[k] = v
		}
		for k, v := range env {
			full[k] = v
		}

		mounts := map[string]corev1.VolumeMount{}
		for _, vm := range c.VolumeMounts {
			mounts[vm.MountPath] = vm
		}
		volumes := map[string]corev1.Volume{}
		for _, v := range pod.spec.Volumes {
			volumes[v.Name] = v
		}
		for name, value := range env {
			if !strings.HasSuffix(name, "_FILE") {
				continue
			}
			checkSecretFile(t, where+" "+name, value, mounts, volumes, m.secrets)
		}
		dataDir := full["CARDCAT_DATA_DIR"]
		if vm, ok := mounts[dataDir]; !ok || vm.ReadOnly || volumes[vm.Name].EmptyDir == nil && volumes[vm.Name].PersistentVolumeClaim == nil {
			t.Errorf("%s: the data directory %s is not a writable volume (the root file system is read-only)", where, dataDir)
		}
		if local := flagValue(c.Args, "local-dir"); local != "" {
			if _, ok := mounts[path.Join(local, "links")]; !ok {
				t.Errorf("%s: --local-dir %s has no links/ mounted", where, local)
			}
		}
		if limit, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok {
			t.Errorf("%s: no memory limit", where)
		} else if req := c.Resources.Requests[corev1.ResourceMemory]; req.Cmp(limit) > 0 {
			t.Errorf("%s: memory request %s above its limit %s", where, req.String(), limit.String())
		}
		if v, ok := env["GOMEMLIMIT"]; ok {
			soft, err := resource.ParseQuantity(strings.Replace(v, "MiB", "Mi", 1))
			limit := c.Resources.Limits[corev1.ResourceMemory]
			if err != nil || soft.Cmp(limit) >= 0 {
				t.Errorf("%s: GOMEMLIMIT %s (%v) is not below the memory limit %s", where, v, err, limit.String())
			}
		}

		if cmdName != "serve" {
			continue
		}
		ports := map[string]int32{}
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
		addr := full["CARDCAT_ADDR"]
		if a := flagValue(c.Args, "addr"); a != "" {
			addr = a
		}
		if got, want := int(ports["http"]), portOf(t, where, addr); got != want {
			t.Errorf("%s: port http %d, serve listens on %d", where, got, want)
		}
		adminAddr := full["CARDCAT_ADMIN_ADDR"]
		if adminAddr == "" {
			t.Fatalf("%s: no admin server: the probes need CARDCAT_ADMIN_ADDR", where)
		}
		if got, want := int(ports["admin"]), portOf(t, where, adminAddr); got != want {
			t.Errorf("%s: port admin %d, the admin server listens on %d", where, got, want)
		}
		if host, _, _ := strings.Cut(adminAddr, ":"); host != "127.0.0.1" && host != "localhost" && full["CARDCAT_ADMIN_ALLOW_PUBLIC"] != "true" {
			t.Errorf("%s: CARDCAT_ADMIN_ADDR %s is not loopback: serve refuses it without CARDCAT_ADMIN_ALLOW_PUBLIC=true", where, adminAddr)
		}
		for name, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
			if p == nil || p.HTTPGet == nil {
				t.Errorf("%s: no HTTP %s probe", where, name)
				continue
			}
			if p.HTTPGet.Port != intstr.FromString("admin") {
				t.Errorf("%s: %s probe on port %s, want admin (the probes are served there, not on the API)", where, name, p.HTTPGet.Port.String())
			}
			probePaths = append(probePaths, p.HTTPGet.Path)
		}
		if c.ReadinessProbe != nil && c.LivenessProbe != nil && c.ReadinessProbe.HTTPGet.Path == c.LivenessProbe.HTTPGet.Path {
			t.Errorf("%s: readiness and liveness probe the same path: a replica without keys would be restarted", where)
		}
	}

	// The probes' paths answer 200 on a real serve's admin server.
	admin, _ := servedProbes(t, slices.Compact(slices.Sorted(slices.Values(probePaths))), nil)
	for p, code := range admin {
		if code != 200 {
			t.Errorf("probe path %s: the admin server answers %d, want 200", p, code)
		}
	}
}

// checkSecretFile: value, a *_FILE path, is a key of a Secret mounted in the container.
func checkSecretFile(t *testing.T, where, value string, mounts map[string]corev1.VolumeMount, volumes map[string]corev1.Volume, secrets map[string]*corev1.Secret) {
	t.Helper()
	dir, file := path.Split(value)
	vm, ok := mounts[strings.TrimSuffix(dir, "/")]
	if !ok {
		t.Errorf("%s: %s is in no mounted volume", where, value)
		return
	}
	vol := volumes[vm.Name]
	if vol.Secret == nil {
		t.Errorf("%s: %s is on volume %s, not a Secret", where, value, vm.Name)
		return
	}
	s := secrets[vol.Secret.SecretName]
	if s == nil {
		t.Errorf("%s: Secret %s is in no manifest", where, vol.Secret.SecretName)
		return
	}
	key := file
	if len(vol.Secret.Items) > 0 {
		key = ""
		for _, it := range vol.Secret.Items {
			if it.Path == file {
				key = it.Key
			}
		}
	}
	if _, ok := s.StringData[key]; key == "" || !ok {
		t.Errorf("%s: %s is no key of Secret %s", where, value, s.Name)
	}
}

// flagValue is the value of --name in args ("--name value" or "--name=value"), or "".
func flagValue(args []string, name string) string {
	for i, a := range args {
		n, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || n != name {
			continue
		}
		if hasValue {
			return v
		}
		if i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// TestKubernetesObjectsFitTogether: the Deployment selects its own pods, the Service, the PDB and the network
// policy select them and name its ports, the HPA scales it.
func TestKubernetesObjectsFitTogether(t *testing.T) {
	t.Parallel()
	m := decodeManifests(t)
	dep := m.deployments[0]
	podLabels := labels.Set(dep.Spec.Template.Labels)
	selects := func(where string, sel *metav1.LabelSelector) {
		t.Helper()
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || s.Empty() || !s.Matches(podLabels) {
			t.Errorf("%s: selector %v (%v) does not select the Deployment's pods %v", where, sel, err, podLabels)
		}
	}
	selects("deployment.yaml spec.selector", dep.Spec.Selector)
	containerPorts := map[string]bool{}
	for _, p := range dep.Spec.Template.Spec.Containers[0].Ports {
		containerPorts[p.Name] = true
	}

	svc := m.services[0]
	selects("service.yaml", &metav1.LabelSelector{MatchLabels: svc.Spec.Selector})
	for _, p := range svc.Spec.Ports {
		if p.TargetPort.Type != intstr.String || !containerPorts[p.TargetPort.StrVal] {
			t.Errorf("service.yaml: targetPort %s is no named port of the Deployment's container", p.TargetPort.String())
		}
		if p.TargetPort.StrVal == "admin" {
			t.Error("service.yaml exposes the admin port, which has no authentication")
		}
	}

	hpa := m.hpas[0]
	ref := hpa.Spec.ScaleTargetRef
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != dep.Name {
		t.Errorf("hpa.yaml scales %s %s %s, want apps/v1 Deployment %s", ref.APIVersion, ref.Kind, ref.Name, dep.Name)
	}
	if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 || hpa.Spec.MaxReplicas < *hpa.Spec.MinReplicas {
		t.Errorf("hpa.yaml: replicas %v..%d, want at least 2 (the PDB lets one go)", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	for _, metric := range hpa.Spec.Metrics {
		if metric.Resource == nil || metric.Resource.Name != corev1.ResourceCPU {
			continue
		}
		if _, ok := dep.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]; !ok {
			t.Error("hpa.yaml scales on CPU utilisation, which needs a CPU request in the Deployment")
		}
	}

	pdb := m.pdbs[0]
	selects("pdb.yaml", pdb.Spec.Selector)
	if pdb.Spec.MaxUnavailable == nil && pdb.Spec.MinAvailable == nil {
		t.Error("pdb.yaml: neither maxUnavailable nor minAvailable")
	}

	for _, np := range m.policies {
		selects("networkpolicy.yaml", &np.Spec.PodSelector)
		for _, rule := range np.Spec.Ingress {
			for _, p := range rule.Ports {
				if p.Port == nil || p.Port.Type != intstr.String || !containerPorts[p.Port.StrVal] {
					t.Errorf("networkpolicy.yaml: port %v is no named port of the Deployment's container", p.Port)
				}
				if p.Port != nil && p.Port.StrVal == "admin" && len(rule.From) == 0 {
					t.Error("networkpolicy.yaml opens the admin port to everyone")
				}
			}
		}
	}

	job := m.cronJobs[0]
	if job.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent {
		t.Errorf("cronjob.yaml: concurrencyPolicy %s, want Forbid (one ingest at a time)", job.Spec.ConcurrencyPolicy)
	}
	if job.Spec.TimeZone == nil || *job.Spec.TimeZone != "Etc/UTC" {
		t.Error("cronjob.yaml: the schedule's hour is UTC's (tcgcsv.com's): timeZone Etc/UTC")
	}
	if trusted := m.configMaps["cardcat-config"].Data["CARDCAT_TRUSTED_PROXIES"]; trusted != "" {
		for _, p := range strings.Split(trusted, ",") {
			if _, err := netip.ParsePrefix(strings.TrimSpace(p)); err != nil {
				t.Errorf("configmap.yaml CARDCAT_TRUSTED_PROXIES: %v", err)
			}
		}
	}
}
