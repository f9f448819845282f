package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A module whose tests pass, skip for a variable, skip for a missing
// program, skip in subtests, and fail when FAIL_ONE is set.
var testModule = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"a/a_test.go": `package a

import (
	"os"
	"testing"
)

func TestPass(t *testing.T) { t.Log("fine") }

func TestNeedsBrowser(t *testing.T) {
	t.Log("looking for a browser")
	t.Skip("CARDCAT_TEST_FAKE is not set: the browser test needs Chromium")
}

func TestNeedsTool(t *testing.T) { t.Skip("wrk is not installed") }

func TestStores(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {})
	t.Run("postgres", func(t *testing.T) { t.Skipf("PostgreSQL tests need %s,\n        e.g. postgres://", "CARDCAT_TEST_FAKE_DB") })
}

func TestFails(t *testing.T) {
	if os.Getenv("FAIL_ONE") != "" {
		t.Error("it went wrong")
	}
}
`,
	"b/b_test.go": `package b

import "testing"

func TestAlsoNeedsBrowser(t *testing.T) { t.Skip("CARDCAT_TEST_FAKE is not set") }
`,
	"c/c.go": "package c\n",
}

func writeModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range testModule {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRun: go test's exit status, the result lines, the failed test's
// output, and the skips grouped by the variable they need.
func TestRun(t *testing.T) {
	t.Chdir(writeModule(t))
	for _, v := range suiteVars { // as CI sets them or not
		t.Setenv(v, "")
	}
	t.Setenv("CARDCAT_TEST_FAKE", "")
	t.Setenv("CARDCAT_TEST_REDIS_URL", "redis://here")

	var out, errs bytes.Buffer
	if code := run("go", []string{"-count=1", "./..."}, &out, &errs); code != 0 {
		t.Fatalf("exit %d; stderr %s; stdout:\n%s", code, &errs, &out)
	}
	got := out.String()
	for _, want := range []string{
		"ok  \texample.com/m/a\t",
		"ok  \texample.com/m/b\t",
		"?   \texample.com/m/c\t[no test files]",
		"test summary: 4 tests passed, 4 skipped, 0 failed (subtests included), in 3 packages (0 failed)",
		"suite variables set: CARDCAT_TEST_REDIS_URL\n",
		"  CARDCAT_TEST_FAKE (not set): 2 tests (example.com/m/a TestNeedsBrowser; example.com/m/b TestAlsoNeedsBrowser)\n" +
			"      CARDCAT_TEST_FAKE is not set: the browser test needs Chromium\n  ",
		"  CARDCAT_TEST_FAKE_DB (not set): 1 test (example.com/m/a TestStores/...)\n" +
			"      PostgreSQL tests need CARDCAT_TEST_FAKE_DB, e.g. postgres://\n",
		"  wrk is not installed: 1 test (example.com/m/a TestNeedsTool)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
	for _, notWant := range []string{"=== RUN", "fine", "PASS\n"} {
		if strings.Contains(got, notWant) {
			t.Errorf("the output has %q, which plain go test does not print:\n%s", notWant, got)
		}
	}

	t.Setenv("FAIL_ONE", "1")
	out.Reset()
	if code := run("go", []string{"-count=1", "./a"}, &out, &errs); code != 1 {
		t.Errorf("a failed test: exit %d, want 1", code)
	}
	got = out.String()
	for _, want := range []string{"--- FAIL: TestFails", "a_test.go:24: it went wrong", "FAIL\texample.com/m/a\t",
		"1 failed (subtests included), in 1 packages (1 failed)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}

	// A build failure is shown, and fails.
	if err := os.WriteFile(filepath.Join("b", "b_test.go"), []byte("package b\n\nfunc broken( {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errs.Reset()
	if code := run("go", []string{"-count=1", "./b"}, &out, &errs); code == 0 {
		t.Errorf("a build failure: exit 0")
	}
	if got := out.String() + errs.String(); !strings.Contains(got, "b_test.go:3") {
		t.Errorf("the build error is not shown:\n%s", got)
	}
}

// TestSkipsInAnyOrder: a group's message is its first test's in package
// then start order, and its tests are listed in that order, whichever
// package's output comes first and in whatever order a package's tests end.
func TestSkipsInAnyOrder(t *testing.T) {
	skipped := func(pkg, test, why string) []event {
		return []event{
			{Action: "output", Package: pkg, Test: test, Output: "    x_test.go:9: " + why + "\n"},
			{Action: "output", Package: pkg, Test: test, Output: "--- SKIP: " + test + " (0.00s)\n"},
			{Action: "skip", Package: pkg, Test: test},
		}
	}
	// In a, TestNeedsBrowser starts first and ends last.
	a := []event{{Action: "run", Package: "example.com/m/a", Test: "TestNeedsBrowser"},
		{Action: "run", Package: "example.com/m/a", Test: "TestNeedsBrowserToo"}}
	a = append(a, skipped("example.com/m/a", "TestNeedsBrowserToo", "CARDCAT_TEST_FAKE is not set: no screenshots")...)
	a = append(a, skipped("example.com/m/a", "TestNeedsBrowser", "CARDCAT_TEST_FAKE is not set: the browser test needs Chromium")...)
	b := []event{{Action: "run", Package: "example.com/m/b", Test: "TestAlsoNeedsBrowser"}}
	b = append(b, skipped("example.com/m/b", "TestAlsoNeedsBrowser", "CARDCAT_TEST_FAKE is not set")...)

	const want = "  CARDCAT_TEST_FAKE (not set): 3 tests (example.com/m/a TestNeedsBrowser, TestNeedsBrowserToo; " +
		"example.com/m/b TestAlsoNeedsBrowser)\n" +
		"      CARDCAT_TEST_FAKE is not set: the browser test needs Chromium\n"
	for name, events := range map[string][]event{"a first": slices.Concat(a, b), "b first": slices.Concat(b, a)} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			s := newSummary(&out)
			for _, e := range events {
				s.handle(e)
			}
			out.Reset()
			s.write(&out, 0, func(string) string { return "" })
			if got := out.String(); !strings.Contains(got, want) {
				t.Errorf("the summary lacks %q:\n%s", want, got)
			}
		})
	}
}

// TestSkipMessage: the last logged line before the skip, with its
// continuation lines.
func TestSkipMessage(t *testing.T) {
	for _, tt := range []struct {
		lines []string
		want  string
	}{
		{[]string{"=== RUN   TestX\n", "    x_test.go:3: starting\n", "    x_test.go:9: CARDCAT_TEST_X is not set\n", "--- SKIP: TestX (0.00s)\n"}, "CARDCAT_TEST_X is not set"},
		{[]string{"    x_test.go:9: first line\n", "        second line\n", "--- SKIP: TestX (0.00s)\n"}, "first line second line"},
		{[]string{"--- SKIP: TestX (0.00s)\n"}, "no message"},
	} {
		if got := skipMessage(tt.lines); got != tt.want {
			t.Errorf("skipMessage(%q) = %q, want %q", tt.lines, got, tt.want)
		}
	}
}
