package openapidoc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

// docWith is a 3.1 document whose one component schema is schema.
func docWith(schema string) []byte {
	return []byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1","summary":"s"},"paths":{},"components":{"schemas":{"S":` + schema + `}}}`)
}

func TestDowngrade(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"nullable type", `{"type":["string","null"],"maxLength":3}`, `{"type":"string","nullable":true,"maxLength":3}`},
		{"type list", `{"type":["string","integer"]}`, `{"oneOf":[{"type":"string"},{"type":"integer"}]}`},
		{"nullable type list", `{"type":["string","integer","null"]}`, `{"oneOf":[{"type":"string"},{"type":"integer"}],"nullable":true}`},
		{"null alternative of one", `{"description":"d","oneOf":[{"$ref":"#/components/schemas/X"},{"type":"null"}]}`,
			`{"description":"d","allOf":[{"$ref":"#/components/schemas/X"}],"nullable":true}`},
		{"null alternative of two", `{"oneOf":[{"$ref":"#/a"},{"$ref":"#/b"},{"type":"null"}]}`,
			`{"oneOf":[{"$ref":"#/a"},{"$ref":"#/b"}],"nullable":true}`},
		{"const", `{"type":"string","const":"x"}`, `{"type":"string","enum":["x"]}`},
		{"untyped string enum", `{"enum":["a","b"]}`, `{"type":"string","enum":["a","b"]}`},
		{"array without items", `{"type":"array","maxItems":3}`, `{"type":"array","maxItems":3,"items":{}}`},
		{"untyped mixed enum", `{"enum":["a",1]}`, `{"enum":["a",1]}`},
		{"nested", `{"type":"object","properties":{"p":{"type":["number","null"]}},"additionalProperties":false,` +
			`"allOf":[{"properties":{"e":{"const":1}}}],"items":{"type":["string","null"]}}`,
			`{"type":"object","properties":{"p":{"type":"number","nullable":true}},"additionalProperties":false,` +
				`"allOf":[{"properties":{"e":{"enum":[1]}}}],"items":{"type":"string","nullable":true}}`},
		{"numbers kept", `{"type":"number","minimum":0.10,"maximum":12345678901234567890}`,
			`{"type":"number","minimum":0.10,"maximum":12345678901234567890}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Downgrade(docWith(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			var got, want map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(docWith(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			want["openapi"] = "3.0.3"
			delete(want["info"].(map[string]any), "summary")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tc.name == "numbers kept" && !strings.Contains(string(out), `"minimum": 0.10`) {
				t.Errorf("numbers rewritten: %s", out)
			}
		})
	}
}

// Forms that 3.0 lacks and Downgrade does not rewrite are errors.
func TestDowngradeRefuses(t *testing.T) {
	for _, schema := range []string{
		`{"prefixItems":[{"type":"string"}]}`,
		`{"type":"number","exclusiveMinimum":0}`,
		`{"type":"string","examples":["a"]}`,
		`{"$ref":"#/components/schemas/X","description":"d"}`,
		`{"type":"null"}`,
		`{"properties":{"p":{"if":{"type":"string"}}}}`,
		`{"items":true}`,
	} {
		if _, err := Downgrade(docWith(schema)); err == nil {
			t.Errorf("%s: no error", schema)
		}
	}
	if _, err := Downgrade([]byte(`{"openapi":"3.0.3"}`)); err == nil {
		t.Error("a 3.0 document: no error")
	}
}

// The document's copy is deterministic and a valid OpenAPI 3.0 document.
func TestDowngradeDocument(t *testing.T) {
	doc, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	a, err := Downgrade(doc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Downgrade(doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Error("two downgrades of the document differ")
	}
	if !strings.HasPrefix(string(a), "{\n  \"components\"") || !strings.Contains(string(a), "\n  \"openapi\": \"3.0.3\",\n") {
		t.Errorf("the copy does not say openapi 3.0.3")
	}
	loaded, err := openapi3.NewLoader().LoadFromData(a)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.IsOpenAPI31OrLater() {
		t.Errorf("openapi %q", loaded.OpenAPI)
	}
	if err := loaded.Validate(context.Background()); err != nil {
		t.Errorf("the 3.0 copy does not validate: %v", err)
	}
	for _, only31 := range []string{`"const"`, `"type": [`, `"type": "null"`} {
		if strings.Contains(string(a), only31) {
			t.Errorf("the 3.0 copy still has %s", only31)
		}
	}
}
