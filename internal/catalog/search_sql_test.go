package catalog

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestLooksLikeSQL(t *testing.T) {
	rejected := []string{
		"' or 1=1",
		"' OR 1=1 --",
		`" or ""="`,
		"goku' or 'a'='a",
		"') or ('1'='1",
		"x' and sleep(5)",
		"1 or 1=1",
		"goku and 1=1",
		"a or b=b",
		"goku union select password from users",
		"goku UNION ALL SELECT null",
		"goku; drop table cards",
		"goku';drop table cards",
		"; DELETE FROM cards",
		"goku --",
		"admin'--",
		"goku /* comment */",
		"select * from cards",
		"select name from users",
		"insert into cards values (1)",
		"delete from cards",
		"drop table cards",
		"update cards set price=0",
		"waitfor delay '0:0:5'",
		"1; exec xp_cmdshell 'dir'",
		"select @@version",
		"goku' ;",
		"x from information_schema.tables",
		"char(65)",
		"benchmark(1000000,md5(1))",
		"0x414243444546",
	}
	for _, q := range rejected {
		if !LooksLikeSQL(q) {
			t.Errorf("LooksLikeSQL(%q) = false, want true", q)
		}
	}
	// Real card names (and names like them) that come close.
	allowed := []string{
		"Select for Inspection",
		"Sleep (Showcase)",
		"Execute",
		"Fight or Flight",
		"Order or Chaos",
		"Rock 'n' Roll",
		"Who // What // When // Where // Why",
		"_____",
		"Kongming, \"Sleeping Dragon\"",
		"“Ach! Hans, Run!”",
		"Richard Garfield, Ph.D.",
		"B.F.M. (Big Furry Monster)",
		"Look at Me, I'm R&D",
		"Bloomburrow - Tins [Set of 3]",
		"Son Gohan : Childhood",
		"Android 16 - FB01-073",
		"Drop of Honey",
		"Union of the Third Path",
		"Update",
		"Delete",
		"Dawn's Truce",
		"Hunter's Talent",
		"Gods' Hall Guardian",
		"Sword of War and Peace",
		"Fire // Ice",
		"100% cotton",
		"* star *",
		"Teferi's Protection",
		"Naturalize; Regrowth",
	}
	for _, q := range allowed {
		if LooksLikeSQL(q) {
			t.Errorf("LooksLikeSQL(%q) = true, want false", q)
		}
	}
}

// TestRealNamesPassSQLCheck reads every product name of the real TCGplayer
// files in ../shared/data (next to the repository, as on the development and
// CI machines): none may be refused.
func TestRealNamesPassSQLCheck(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "data", "tcgplayer", "*", "*", "products.json"))
	if len(files) == 0 {
		t.Skip("../shared/data not found next to the repository")
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Results []struct{ Name string } `json:"results"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, p := range env.Results {
			n++
			if LooksLikeSQL(p.Name) {
				t.Errorf("%s: real name %q looks like SQL", f, p.Name)
			}
		}
	}
	t.Logf("%d real names checked", n)
}

func TestFixtureNamesPassSQLCheck(t *testing.T) {
	for _, g := range fixtureCatalog().Games {
		for _, c := range g.Cards {
			if LooksLikeSQL(c.Name) {
				t.Errorf("fixture name %q looks like SQL", c.Name)
			}
		}
	}
}

// TestMaybeSQLCoversThePatterns checks maybeSQL's promise on many strings
// built from the patterns' words, punctuation and plain words: wherever
// the regular expression matches, maybeSQL is true (and it lets most plain
// queries skip the expression).
func TestMaybeSQLCoversThePatterns(t *testing.T) {
	pieces := []string{"union", "UNION", "select", "Select", "insert", "into", "delete", "from", "drop", "table",
		"truncate", "alter", "update", "set", "x", "=", "1", "'a'", "or", "OR", "and", "And", "sleep", "(", "5", ")",
		"pg_sleep", "benchmark", "waitfor", "delay", "exec", "execute", "xp_cmdshell", "master.", "@@version",
		"information_schema", "char", "chr", "concat", "0x1234abcd9", "0X1234ABCD99", "null", "*", "count", "users",
		"dual", "goku", "lord", "sword", "island", "S0123-04", "-", "/", "--", "/*", "*/", ";", "'", "\"", "`", "ſelect", "Éclair",
		"||", "|", "Urza's", "Pokémon", "benchmar\u212A", "li\u212Ae", "\u017Fleep", "\u212A", "\u017F",
		"\t", "\n", " ", "  ", "<", ">", "like", "true", "not", "exists"}
	rng := rand.New(rand.NewPCG(3, 4))
	plain, matched := 0, 0
	for range 200000 {
		var b strings.Builder
		for k := 1 + rng.IntN(6); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		q := b.String()
		re := sqlLike.MatchString(q)
		if re && !maybeSQL(q) {
			t.Fatalf("%q matches the patterns but maybeSQL says it cannot", q)
		}
		if re {
			matched++
		} else if !maybeSQL(q) {
			plain++
		}
	}
	if matched == 0 || plain == 0 {
		t.Fatalf("%d strings matched, %d skipped the expression: the pieces no longer reach both sides", matched, plain)
	}
	// One string per pattern of sqlLike, in its order.
	for _, q := range []string{"a -- b", "a /* b", "a */ b", "x ;select", "union all select", "select count(",
		"select a from dual", "insert into", "delete from", "drop table", "truncate table", "alter user",
		"update t set a =", "x' or 1", "or 1 = 1", "and a != b", "x' ;", "pg_sleep(5)", "Sleep (5)",
		"benchmark(1", "waitfor delay", "exec xp_", "xp_cmdshell", "@@version", "information_schema",
		"chr(65", "concat(1", "0x0123456789", "benchmar\u212A(1", "x' || 1=1"} {
		if !sqlLike.MatchString(q) || !maybeSQL(q) {
			t.Errorf("%q: pattern %v, maybeSQL %v; want both", q, sqlLike.MatchString(q), maybeSQL(q))
		}
	}
	for _, q := range []string{"goku", "son goku", "Lord of the Rings", "Sword and Shield", "Charizard ex", "Urza's Tower",
		"Pokémon Center", "Flabébé", `"Lightning" Bolt`, "Farfetch'd"} {
		if want := q == "Sword and Shield"; maybeSQL(q) != want {
			t.Errorf("maybeSQL(%q) = %v, want %v", q, !want, want)
		}
	}
}

// BenchmarkLooksLikeSQL checks plain queries, as nearly every search is
// (with an apostrophe or an accent too, as many real names have).
func BenchmarkLooksLikeSQL(b *testing.B) {
	qs := []string{"goku", "son goku", "Black Lotus", "Charizard ex", "Ancient Lost Dragon (Alternate Art)", "S0123-04",
		"Urza's Tower", "Pokémon Center"}
	i := 0
	for b.Loop() {
		if LooksLikeSQL(qs[i%len(qs)]) {
			b.Fatal("a plain query looks like SQL")
		}
		i++
	}
}

// BenchmarkSQLExpression is the expression alone on the same queries.
func BenchmarkSQLExpression(b *testing.B) {
	qs := []string{"goku", "son goku", "Black Lotus", "Charizard ex", "Ancient Lost Dragon (Alternate Art)", "S0123-04"}
	i := 0
	for b.Loop() {
		sqlLike.MatchString(qs[i%len(qs)])
		i++
	}
}

// TestOnlyTwoRunesFoldToASCII holds maybeSQL's assumption: of every rune
// outside ASCII, only U+017F (ſ) and U+212A (the Kelvin sign) share a case
// folding orbit with an ASCII letter, so only they can spell a pattern's
// word under (?i).
func TestOnlyTwoRunesFoldToASCII(t *testing.T) {
	var found []rune
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < 0x80 {
				found = append(found, r)
				break
			}
		}
	}
	if want := []rune{0x017F, 0x212A}; !slices.Equal(found, want) {
		t.Errorf("runes folding to ASCII: %U, want %U", found, want)
	}
}
