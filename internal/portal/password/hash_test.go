package password

import (
	"errors"
	"strings"
	"testing"
)

// Made by the reference implementation (Debian's argon2 CLI, 0~20171227):
// echo -n "correct horse battery staple" | argon2 saltsaltsaltsalt -id -t T -k M -p P -l 32 -e
const (
	referenceCurrent = "$argon2id$v=19$m=65536,t=3,p=1$c2FsdHNhbHRzYWx0c2FsdA$ak6+SwLOxry61DDjDw0uDBBZ1c0o5OpGJ4pHMI/JEhA"
	referenceCheap   = "$argon2id$v=19$m=8192,t=2,p=2$c2FsdHNhbHRzYWx0c2FsdA$BiIULq9JfJb6cScLOcUvImj+DOuIRaGTa285ihPTv8s"
	referencePass    = "correct horse battery staple"
)

func TestHashVerify(t *testing.T) {
	encoded, err := Hash(referencePass)
	if err != nil {
		t.Fatal(err)
	}
	if want := "$argon2id$v=19$m=65536,t=3,p=1$"; !strings.HasPrefix(encoded, want) {
		t.Fatalf("Hash = %q, want the prefix %q", encoded, want)
	}
	for _, tc := range []struct {
		password string
		want     bool
	}{
		{referencePass, true},
		{"correct horse battery stapler", false},
		{"Correct horse battery staple", false},
		{"", false},
	} {
		ok, err := Verify(tc.password, encoded)
		if err != nil || ok != tc.want {
			t.Errorf("Verify(%q) = %v, %v; want %v, nil", tc.password, ok, err, tc.want)
		}
	}
	if NeedsRehash(encoded) {
		t.Error("NeedsRehash of a fresh hash = true")
	}
	if again, _ := Hash(referencePass); again == encoded {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
}

func TestVerifyReferenceHashes(t *testing.T) {
	for _, tc := range []struct {
		name, encoded string
		needsRehash   bool
	}{
		{"current parameters", referenceCurrent, false},
		{"other parameters", referenceCheap, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if ok, err := Verify(referencePass, tc.encoded); !ok || err != nil {
				t.Errorf("Verify(right password) = %v, %v; want true, nil", ok, err)
			}
			if ok, err := Verify("wrong horse battery staple", tc.encoded); ok || err != nil {
				t.Errorf("Verify(wrong password) = %v, %v; want false, nil", ok, err)
			}
			if got := NeedsRehash(tc.encoded); got != tc.needsRehash {
				t.Errorf("NeedsRehash = %v, want %v", got, tc.needsRehash)
			}
		})
	}
}

func TestHashWithOtherParameters(t *testing.T) {
	old := params{memoryKiB: 19 * 1024, iterations: 2, parallelism: 1}
	encoded, err := hashWith(referencePass, old)
	if err != nil {
		t.Fatal(err)
	}
	if want := "$argon2id$v=19$m=19456,t=2,p=1$"; !strings.HasPrefix(encoded, want) {
		t.Fatalf("hashWith = %q, want the prefix %q", encoded, want)
	}
	if ok, err := Verify(referencePass, encoded); !ok || err != nil {
		t.Errorf("Verify = %v, %v; want true, nil", ok, err)
	}
	if !NeedsRehash(encoded) {
		t.Error("NeedsRehash of a hash with older parameters = false")
	}
}

func TestHashRefusesTooLong(t *testing.T) {
	if _, err := Hash(strings.Repeat("a", MaxBytes+1)); !errors.Is(err, ErrTooLong) {
		t.Errorf("Hash(%d bytes) error = %v, want ErrTooLong", MaxBytes+1, err)
	}
	if ok, err := Verify(strings.Repeat("a", MaxBytes+1), referenceCheap); ok || err != nil {
		t.Errorf("Verify(%d bytes) = %v, %v; want false, nil", MaxBytes+1, ok, err)
	}
}

func TestVerifyMalformed(t *testing.T) {
	const salt, key = "c2FsdHNhbHRzYWx0c2FsdA", "BiIULq9JfJb6cScLOcUvImj+DOuIRaGTa285ihPTv8s"
	for _, tc := range []struct{ name, encoded string }{
		{"empty", ""},
		{"plain text", "hunter2"},
		{"bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"argon2i", "$argon2i$v=19$m=8192,t=2,p=2$" + salt + "$" + key},
		{"no leading $", "argon2id$v=19$m=8192,t=2,p=2$" + salt + "$" + key},
		{"missing key", "$argon2id$v=19$m=8192,t=2,p=2$" + salt},
		{"extra field", "$argon2id$v=19$m=8192,t=2,p=2$" + salt + "$" + key + "$"},
		{"version 16", "$argon2id$v=16$m=8192,t=2,p=2$" + salt + "$" + key},
		{"no version", "$argon2id$m=8192,t=2,p=2$" + salt + "$" + key + "$x"},
		{"parameters out of order", "$argon2id$v=19$t=2,m=8192,p=2$" + salt + "$" + key},
		{"two parameters", "$argon2id$v=19$m=8192,t=2$" + salt + "$" + key},
		{"zero iterations", "$argon2id$v=19$m=8192,t=0,p=2$" + salt + "$" + key},
		{"zero lanes", "$argon2id$v=19$m=8192,t=2,p=0$" + salt + "$" + key},
		{"256 lanes", "$argon2id$v=19$m=8192,t=2,p=256$" + salt + "$" + key},
		{"memory below 8 KiB a lane", "$argon2id$v=19$m=15,t=2,p=2$" + salt + "$" + key},
		{"memory of 4 GiB", "$argon2id$v=19$m=4194304,t=2,p=2$" + salt + "$" + key},
		{"a million iterations", "$argon2id$v=19$m=8192,t=1000000,p=2$" + salt + "$" + key},
		{"negative memory", "$argon2id$v=19$m=-8192,t=2,p=2$" + salt + "$" + key},
		{"plus sign", "$argon2id$v=19$m=+8192,t=2,p=2$" + salt + "$" + key},
		{"padded salt", "$argon2id$v=19$m=8192,t=2,p=2$" + salt + "==$" + key},
		{"salt not base64", "$argon2id$v=19$m=8192,t=2,p=2$salt!salt!salt$" + key},
		{"short salt", "$argon2id$v=19$m=8192,t=2,p=2$c2FsdA$" + key},
		{"empty key", "$argon2id$v=19$m=8192,t=2,p=2$" + salt + "$"},
		{"short key", "$argon2id$v=19$m=8192,t=2,p=2$" + salt + "$c2FsdHNhbHQ"},
		{"key with a newline", "$argon2id$v=19$m=8192,t=2,p=2$" + salt + "$" + key + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := Verify(referencePass, tc.encoded)
			if ok || !errors.Is(err, ErrMalformedHash) {
				t.Fatalf("Verify = %v, %v; want false, ErrMalformedHash", ok, err)
			}
			if strings.Contains(err.Error(), salt) || strings.Contains(err.Error(), key) {
				t.Errorf("the error %q carries the encoding, which must stay out of logs", err)
			}
			if !NeedsRehash(tc.encoded) {
				t.Error("NeedsRehash of a malformed encoding = false")
			}
		})
	}
}

func TestDummyUsesCurrentParameters(t *testing.T) {
	if _, _, _, err := decode(dummyEncoded); err != nil {
		t.Fatalf("the dummy hash does not decode: %v", err)
	}
	if NeedsRehash(dummyEncoded) {
		t.Error("the dummy hash has other parameters than Hash: unknown emails would answer at another speed")
	}
	VerifyDummy(referencePass)
}

func FuzzVerify(f *testing.F) {
	for _, seed := range []string{
		referenceCheap,
		"",
		"$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$c2FsdHNhbHRzYWx0c2FsdA",
		"$argon2id$v=19$m=8192,t=2,p=2$$",
		"$argon2id$v=19$m=,t=,p=$c2FsdHNhbHQ$c2FsdHNhbHRzYWx0c2FsdA",
		"$$$$$",
	} {
		f.Add("correct horse battery staple", seed)
	}
	f.Fuzz(func(t *testing.T, password, encoded string) {
		ok, err := Verify(password, encoded)
		if err != nil && ok {
			t.Fatalf("Verify = true with the error %v", err)
		}
		if err != nil && !NeedsRehash(encoded) {
			t.Fatalf("NeedsRehash = false for an encoding Verify refused: %v", err)
		}
	})
}
