package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
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
