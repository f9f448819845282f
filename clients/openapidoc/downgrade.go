package openapidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Downgrade returns an OpenAPI 3.0.3 copy of a 3.1 document, for generators
// that read 3.0 only (oapi-codegen chokes on `type: [string, "null"]`). It
// rewrites the 3.1 forms the document uses:
//
//   - openapi "3.1.x" → "3.0.3"; info.summary (3.1 only) is dropped;
//   - a schema's `type: [T, "null"]` → `type: T, nullable: true`;
//     `type: [A, B]` → `oneOf: [{type: A}, {type: B}]` (nullable if "null" was one);
//   - a `{type: "null"}` alternative of oneOf/anyOf is dropped and the schema
//     made `nullable: true`; when one alternative is left, it becomes
//     `allOf: [it]`, 3.0's way to say "this $ref, or null";
//   - `const: v` → `enum: [v]`;
//   - an enum of strings without a type gets `type: string`: the same values,
//     and generators type it (the error bodies refine Error's `error` so);
//   - an array without items gets `items: {}` (any item, as 3.1 reads its
//     absence), which 3.0 requires.
//
// Any other form that 3.0 lacks (prefixItems, $defs, if/then/else, a numeric
// exclusiveMinimum, schema examples, $ref with siblings, webhooks, ...) is an
// error, so that a change of the document cannot slip into a wrong copy:
// teach this function the new form instead. The output is indented JSON with
// sorted keys, the same for the same input.
func Downgrade(doc []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var root map[string]any
	if err := d.Decode(&root); err != nil {
		return nil, fmt.Errorf("openapidoc: downgrade: %w", err)
	}
	if v, _ := root["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		return nil, fmt.Errorf("openapidoc: downgrade: openapi %q, want 3.1.x", v)
	}
	root["openapi"] = "3.0.3"
	for _, k := range []string{"webhooks", "jsonSchemaDialect"} {
		if _, ok := root[k]; ok {
			return nil, fmt.Errorf("openapidoc: downgrade: %s is OpenAPI 3.1 only", k)
		}
	}
	if info, ok := root["info"].(map[string]any); ok {
		delete(info, "summary")
		if lic, ok := info["license"].(map[string]any); ok && lic["identifier"] != nil {
			return nil, fmt.Errorf("openapidoc: downgrade: info.license.identifier is OpenAPI 3.1 only")
		}
	}
	dg := downgrader{}
	if comps, ok := root["components"].(map[string]any); ok {
		if _, ok := comps["pathItems"]; ok {
			return nil, fmt.Errorf("openapidoc: downgrade: components.pathItems is OpenAPI 3.1 only")
		}
		for _, name := range sortedKeys(comps["schemas"]) {
			dg.schema(comps["schemas"].(map[string]any)[name], "components.schemas."+name)
		}
		for _, name := range sortedKeys(comps["parameters"]) {
			dg.withSchema(comps["parameters"].(map[string]any)[name], "components.parameters."+name)
		}
		for _, name := range sortedKeys(comps["headers"]) {
			dg.withSchema(comps["headers"].(map[string]any)[name], "components.headers."+name)
		}
		for _, name := range sortedKeys(comps["responses"]) {
			dg.response(comps["responses"].(map[string]any)[name], "components.responses."+name)
		}
	}
	paths, _ := root["paths"].(map[string]any)
	for _, p := range sortedKeys(paths) {
		item, _ := paths[p].(map[string]any)
		for _, method := range sortedKeys(item) {
			op, _ := item[method].(map[string]any)
			at := "paths." + p + "." + method
			if params, ok := op["parameters"].([]any); ok {
				for i, prm := range params {
					dg.withSchema(prm, fmt.Sprintf("%s.parameters[%d]", at, i))
				}
			}
			if body, ok := op["requestBody"].(map[string]any); ok {
				dg.content(body["content"], at+".requestBody")
			}
			responses, _ := op["responses"].(map[string]any)
			for _, status := range sortedKeys(responses) {
				dg.response(responses[status], at+".responses."+status)
			}
		}
	}
	if len(dg.errs) > 0 {
		return nil, fmt.Errorf("openapidoc: downgrade: %s", strings.Join(dg.errs, "; "))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("openapidoc: downgrade: %w", err)
	}
	return b.Bytes(), nil
}

type downgrader struct{ errs []string }

func (dg *downgrader) fail(at, format string, args ...any) {
	dg.errs = append(dg.errs, at+": "+fmt.Sprintf(format, args...))
}

// withSchema downgrades the schema of a parameter or header object (a $ref
// to one has none).
func (dg *downgrader) withSchema(v any, at string) {
	if m, ok := v.(map[string]any); ok {
		if s, ok := m["schema"]; ok {
			dg.schema(s, at+".schema")
		}
		dg.content(m["content"], at)
	}
}

func (dg *downgrader) response(v any, at string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	headers, _ := m["headers"].(map[string]any)
	for _, name := range sortedKeys(headers) {
		dg.withSchema(headers[name], at+".headers."+name)
	}
	dg.content(m["content"], at)
}

func (dg *downgrader) content(v any, at string) {
	media, _ := v.(map[string]any)
	for _, mt := range sortedKeys(media) {
		if m, ok := media[mt].(map[string]any); ok {
			if s, ok := m["schema"]; ok {
				dg.schema(s, at+".content."+mt+".schema")
			}
		}
	}
}

// Keywords of JSON Schema 2020-12 that OpenAPI 3.0's schema object lacks.
var only31 = []string{"$defs", "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$schema", "prefixItems",
	"if", "then", "else", "dependentRequired", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems",
	"contentMediaType", "contentEncoding", "contentSchema", "examples", "patternProperties", "propertyNames",
	"contains", "minContains", "maxContains"}

func (dg *downgrader) schema(v any, at string) {
	s, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool {
			dg.fail(at, "a boolean schema is OpenAPI 3.1 only")
		}
		return
	}
	if _, ok := s["$ref"]; ok && len(s) > 1 {
		dg.fail(at, "$ref with sibling keywords is OpenAPI 3.1 only")
	}
	for _, k := range only31 {
		if _, ok := s[k]; ok {
			dg.fail(at, "%s is OpenAPI 3.1 only", k)
		}
	}
	for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
		if _, ok := s[k].(json.Number); ok {
			dg.fail(at, "a numeric %s is OpenAPI 3.1 only", k)
		}
	}
	if c, ok := s["const"]; ok {
		if _, ok := s["enum"]; ok {
			dg.fail(at, "both const and enum")
		}
		s["enum"] = []any{c}
		delete(s, "const")
	}
	if enum, ok := s["enum"].([]any); ok && s["type"] == nil && len(enum) > 0 &&
		!slices.ContainsFunc(enum, func(v any) bool { _, str := v.(string); return !str }) {
		s["type"] = "string"
	}
	if types, ok := s["type"].([]any); ok {
		nullable := slices.Contains(types, any("null"))
		types = slices.DeleteFunc(slices.Clone(types), func(t any) bool { return t == "null" })
		switch len(types) {
		case 0:
			dg.fail(at, `type "null" alone has no OpenAPI 3.0 form`)
		case 1:
			s["type"] = types[0]
		default:
			if _, ok := s["oneOf"]; ok {
				dg.fail(at, "a type list beside oneOf")
			}
			var alts []any
			for _, t := range types {
				alts = append(alts, map[string]any{"type": t})
			}
			s["oneOf"] = alts
			delete(s, "type")
		}
		if nullable {
			s["nullable"] = true
		}
	} else if s["type"] == "null" {
		dg.fail(at, `type "null" has no OpenAPI 3.0 form`)
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		alts, ok := s[k].([]any)
		if !ok {
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(alts), func(a any) bool {
			m, _ := a.(map[string]any)
			return len(m) == 1 && m["type"] == "null"
		})
		if len(kept) == len(alts) {
			continue
		}
		s["nullable"] = true
		s[k] = kept
		if len(kept) == 1 {
			if _, ok := s["allOf"]; ok {
				dg.fail(at, "a nullable %s beside allOf", k)
			}
			s["allOf"] = kept
			delete(s, k)
		}
	}
	if _, ok := s["items"]; s["type"] == "array" && !ok {
		s["items"] = map[string]any{}
	}
	props, _ := s["properties"].(map[string]any)
	for _, name := range sortedKeys(props) {
		dg.schema(props[name], at+".properties."+name)
	}
	for _, k := range []string{"items", "not"} {
		if sub, ok := s[k]; ok {
			dg.schema(sub, at+"."+k)
		}
	}
	if sub, ok := s["additionalProperties"].(map[string]any); ok { // true and false are 3.0 too
		dg.schema(sub, at+".additionalProperties")
	}
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		subs, _ := s[k].([]any)
		for i, sub := range subs {
			dg.schema(sub, fmt.Sprintf("%s.%s[%d]", at, k, i))
		}
	}
}

func sortedKeys(v any) []string {
	m, _ := v.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
