package fold

import "testing"

func TestKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Son Goku - FB01-139", "son goku fb01 139"},
		{"Son Goku FB01 139", "son goku fb01 139"},
		{"Saiyan's Pride", "saiyans pride"},
		{"Saiyan’s  Pride", "saiyans pride"},
		{"Frieza’s Army", "friezas army"},
		{"Éowyn, Lady of Rohan", "eowyn lady of rohan"},
		{"Exterminate!", "exterminate"},
		{"Tins [Set of 3]", "tins set of 3"},
		{"  ", ""},
	}
	for _, tt := range tests {
		if got := Key(tt.in); got != tt.want {
			t.Errorf("Key(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The Doctor's Tomb", "The Doctors Tomb"},
		{"Frieza - FS04-11", "Frieza FS04 11"},
		{"Lórien  Revealed", "Lórien Revealed"},
		{"Exterminate!", "Exterminate"},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLower(t *testing.T) {
	if got := Lower("Lórien ÉOWYN"); got != "lorien eowyn" {
		t.Errorf("Lower = %q", got)
	}
	if got := Lower("plain"); got != "plain" {
		t.Errorf("Lower = %q", got)
	}
}
