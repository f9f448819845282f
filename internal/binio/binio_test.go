package binio

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// TestRoundTrip: every value reads back as written, and the reader ends
// exactly at the end.
func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	big := make([]uint32, 5000) // more than one block
	for i := range big {
		big[i] = uint32(i * 7919)
	}
	w.Byte(7)
	w.Uvarint(1 << 40)
	w.Varint(-12345)
	w.U32(0xdeadbeef)
	w.U64(1<<63 + 5)
	w.String("héllo")
	w.Bytes([]byte{1, 2, 3})
	w.Bytes(nil)
	w.U32s(big)
	w.U64s([]uint64{1, 1 << 50})
	if err := w.Flush(); err != nil || w.Written() != int64(buf.Len()) {
		t.Fatalf("flush: %v, %d written, %d in the buffer", err, w.Written(), buf.Len())
	}
	data := buf.Bytes()
	for _, r := range []*Reader{NewReader(bytes.NewReader(data), int64(len(data))), NewBytesReader(data, "owner")} {
		if r.Byte() != 7 || r.Uvarint() != 1<<40 || r.Varint() != -12345 || r.U32() != 0xdeadbeef || r.U64() != 1<<63+5 ||
			r.StringRef() != "héllo" || !bytes.Equal(r.Bytes(), []byte{1, 2, 3}) || r.Bytes() != nil ||
			!slices.Equal(r.U32s(), big) || !slices.Equal(r.U64s(), []uint64{1, 1 << 50}) {
			t.Fatal("a value read back differently")
		}
		if r.Err() != nil || r.Remaining() != 0 {
			t.Fatalf("end: %v, %d left", r.Err(), r.Remaining())
		}
		r.Byte()
		if !errors.Is(r.Err(), ErrCorrupt) {
			t.Errorf("reading past the end: %v", r.Err())
		}
	}
}

// TestBytesReaderStrings: from a byte slice, StringRef shares the slice's
// memory and String copies it; Owner is what was given.
func TestBytesReaderStrings(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.String("shared")
	w.String("copied")
	w.Flush()
	data := buf.Bytes()
	r := NewBytesReader(data, &buf)
	ref, cp := r.StringRef(), r.String()
	if ref != "shared" || cp != "copied" || r.Err() != nil || r.Owner() != any(&buf) {
		t.Fatalf("%q %q %v %v", ref, cp, r.Err(), r.Owner())
	}
	data[1] = 'S'
	data[8] = 'C'
	if ref != "Shared" || cp != "copied" {
		t.Errorf("after changing the bytes: %q (shared) and %q (copied)", ref, cp)
	}
	if NewReader(bytes.NewReader(data), int64(len(data))).Owner() != nil {
		t.Error("an io.Reader's Reader has an owner")
	}
}

// TestRefusals: a length that cannot fit in the bytes left is refused
// before anything is allocated for it, and errors stick.
func TestRefusals(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Uvarint(1 << 60) // a count no file holds
	w.Flush()
	for name, read := range map[string]func(*Reader){
		"string": func(r *Reader) { _ = r.String() },
		"bytes":  func(r *Reader) { r.Bytes() },
		"u32s":   func(r *Reader) { r.U32s() },
		"u64s":   func(r *Reader) { r.U64s() },
	} {
		for _, r := range []*Reader{NewReader(bytes.NewReader(buf.Bytes()), 1<<20), NewBytesReader(buf.Bytes(), nil)} {
			read(r)
			if !errors.Is(r.Err(), ErrCorrupt) {
				t.Errorf("%s of 2^60: %v", name, r.Err())
			}
			if r.U32() != 0 || r.String() != "" || r.StringRef() != "" {
				t.Errorf("%s: a read after an error gave a value", name)
			}
		}
	}
	r := NewReader(bytes.NewReader([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}), 11)
	if r.Uvarint(); !errors.Is(r.Err(), ErrCorrupt) {
		t.Errorf("an endless uvarint: %v", r.Err())
	}
	// Declared size larger than the data: truncated.
	r = NewReader(bytes.NewReader([]byte{3, 'a'}), 10)
	if _ = r.String(); !errors.Is(r.Err(), ErrCorrupt) {
		t.Errorf("a truncated string: %v", r.Err())
	}
	r = NewBytesReader([]byte{3, 'a'}, nil)
	if _ = r.StringRef(); !errors.Is(r.Err(), ErrCorrupt) {
		t.Errorf("a truncated string in place: %v", r.Err())
	}
}
