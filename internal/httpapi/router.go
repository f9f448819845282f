package httpapi

import (
	"net/http"
	"strings"
)

// router dispatches requests to the handlers registered on its ServeMux.
// A GET of a plain path (no escapes, no empty segment) is matched in a tree
// of the patterns' segments, as ServeMux matches its own: a literal segment
// before a wildcard, backtracking when the literal leads nowhere
// (TestRouterAgreesWithMux compares the two on every route and on random
// paths). Every other request, and a path the tree does not match (the 404
// of "/"), goes to the ServeMux. ServeMux's general matching (its path
// cleaning and unescaping, the values' slices) was a fifth of a small
// answer's time in process (bench/README.md, "The chain trimmed").
type router struct {
	mux      *http.ServeMux
	root     segNode
	patterns []string // every pattern registered, in order
}

// segNode is a node of the tree: the path so far is its segments.
type segNode struct {
	lits    map[string]*segNode // the literal next segments
	wild    *segNode            // a wildcard next segment: {wildName}
	h       http.Handler        // of the pattern ending here (nil: none)
	pattern string              // that pattern, as registered
	// wildName is the name of the wildcard this node is, when it is one.
	wildName string
}

func newRouter() *router { return &router{mux: http.NewServeMux()} }

// Handle registers h for pattern on the ServeMux and, for a GET pattern of
// literal segments and single-segment wildcards, in the tree.
func (rt *router) Handle(pattern string, h http.Handler) {
	rt.mux.Handle(pattern, h)
	rt.patterns = append(rt.patterns, pattern)
	path, ok := strings.CutPrefix(pattern, http.MethodGet+" ")
	if !ok || path == "/" || strings.HasSuffix(path, "/") && path != "/{$}" {
		return // another method, or a pattern that matches a whole subtree: the mux's
	}
	n := &rt.root
	if path != "/{$}" {
		for seg := range strings.SplitSeq(path[1:], "/") {
			if name, ok := wildcardName(seg); ok {
				if n.wild == nil {
					n.wild = &segNode{wildName: name}
				}
				if n.wild.wildName != name {
					return // ServeMux would refuse the pair; leave it to the mux
				}
				n = n.wild
				continue
			}
			if strings.HasPrefix(seg, "{") {
				return // {name...}, {$} inside: the mux's
			}
			if n.lits == nil {
				n.lits = map[string]*segNode{}
			}
			if n.lits[seg] == nil {
				n.lits[seg] = &segNode{}
			}
			n = n.lits[seg]
		}
	}
	n.h, n.pattern = h, pattern
}

// wildcardName is the name of a "{name}" segment.
func wildcardName(seg string) (string, bool) {
	if len(seg) < 3 || seg[0] != '{' || seg[len(seg)-1] != '}' {
		return "", false
	}
	name := seg[1 : len(seg)-1]
	return name, !strings.ContainsAny(name, ".$")
}

// pathParam is a wildcard's value in a matched path.
type pathParam struct{ name, value string }

// maxPathValues bounds the wildcards of a pattern the tree takes (the
// API's have at most two).
const maxPathValues = 2

func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r.Context())
	if st == nil {
		rt.mux.ServeHTTP(w, r)
		return
	}
	if m, n := rt.match(r, &st.pathValues); m != nil {
		st.nPathValues = n // pathValue reads them; r.SetPathValue would make a map
		m.h.ServeHTTP(w, r)
		return
	}
	rt.mux.ServeHTTP(w, r)
}

// pathValue is the value of the wildcard name in the path of r, wherever
// it was routed (the router's tree or its ServeMux).
func pathValue(r *http.Request, name string) string {
	if st := stateOf(r.Context()); st != nil {
		for _, v := range st.pathValues[:st.nPathValues] {
			if v.name == name {
				return v.value
			}
		}
	}
	return r.PathValue(name)
}

// Handler returns the handler r is dispatched to and its pattern, as
// ServeMux.Handler does.
func (rt *router) Handler(r *http.Request) (http.Handler, string) {
	var vals [maxPathValues]pathParam
	if m, _ := rt.match(r, &vals); m != nil {
		return m.h, m.pattern
	}
	return rt.mux.Handler(r)
}

// match finds the node of the pattern a GET of a plain path matches in the
// tree, with the number of its wildcards' values put in vals; nil means:
// ask the ServeMux.
func (rt *router) match(r *http.Request, vals *[maxPathValues]pathParam) (*segNode, int) {
	p := r.URL.Path
	if r.Method != http.MethodGet || r.URL.RawPath != "" || len(p) == 0 || p[0] != '/' {
		return nil, 0
	}
	if p == "/" {
		if rt.root.h == nil {
			return nil, 0
		}
		return &rt.root, 0
	}
	if p[len(p)-1] == '/' || strings.Contains(p, "//") || strings.Contains(p, "/.") || strings.IndexByte(p, '%') >= 0 {
		return nil, 0 // ServeMux's cleaning and unescaping decide these
	}
	return rt.root.walk(p[1:], vals, 0)
}

// walk matches rest (segments separated by "/", none empty; "" at the end)
// below n: the node of the pattern that matches and the number of values
// in vals then; nil when no pattern does.
func (n *segNode) walk(rest string, vals *[maxPathValues]pathParam, k int) (*segNode, int) {
	if rest == "" {
		if n.h == nil {
			return nil, 0
		}
		return n, k
	}
	seg, tail, _ := strings.Cut(rest, "/")
	if c := n.lits[seg]; c != nil {
		if m, k := c.walk(tail, vals, k); m != nil {
			return m, k
		}
	}
	if n.wild != nil && k < maxPathValues {
		vals[k] = pathParam{n.wild.wildName, seg}
		return n.wild.walk(tail, vals, k+1)
	}
	return nil, 0
}
